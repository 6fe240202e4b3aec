// What tiny_execute answers (lib/code/report.ts): how the program ended, whether any write was sent and
// which, every call and how it ended, the value and the logs; within the facade's bounds with the calls
// and the writes always kept.

import assert from "node:assert/strict";
import {
  type CallReport,
  callsText,
  endText,
  type RunReport,
  runResult,
  writesText,
} from "../../lib/code/report.ts";

const EVENT = "ab".repeat(32);

function report(extra: Partial<RunReport> = {}): RunReport {
  return { end: "returned", value: { n: 1 }, logs: [], logsDropped: 0, calls: [], callsRefused: 0, ...extra };
}

const ok = (tool: string): CallReport => ({ tool, state: "ok" });

Deno.test("no write at all: said so, in one line", () => {
  assert.equal(writesText([ok("list_rooms"), ok("read_room")]), "No write was sent.");
});

Deno.test("writes: each one sent with its event and the relay's verdict; those held back named apart", () => {
  const calls: CallReport[] = [
    { tool: "post_message", state: "ok", write: { outcome: "accepted", event: EVENT } },
    { tool: "react", state: "error", error: "relay: timeout", write: { outcome: "unknown", event: EVENT } },
    {
      tool: "comment",
      state: "error",
      error: "permission: …",
      write: { outcome: "held", why: "write budget spent" },
    },
    {
      tool: "post_message",
      state: "error",
      write: { outcome: "refused", event: EVENT, why: "blocked: spam" },
    },
  ];
  assert.equal(
    writesText(calls),
    [
      "3 writes were sent:",
      `- post_message event ${EVENT}: accepted by the relay`,
      `- react event ${EVENT}: its answer was lost: it may be published; check with a read tool before sending it again`,
      `- post_message event ${EVENT}: refused by the relay (blocked: spam)`,
      "Not sent: comment (write budget spent).",
    ].join("\n"),
  );
  assert.equal(
    writesText([{
      tool: "comment",
      state: "error",
      write: { outcome: "held", why: "declined at the host" },
    }]),
    "No write was sent (1 held back: comment (declined at the host)).",
  );
  assert.equal(
    writesText([{ tool: "react", state: "error", write: { outcome: "not sent", event: EVENT } }]),
    "No write was sent (1 held back: react (not sent)).",
    "signed but never sent is not sent",
  );
});

Deno.test("the calls: counted by how they ended, each one that did not end well named with its number", () => {
  const text = callsText(report({
    calls: [ok("list_issues"), { tool: "read_issue", state: "error", error: "relay: not found" }, {
      tool: "read_issue",
      state: "not sent",
    }, { tool: "read_issue", state: "unknown" }],
    callsRefused: 900,
  }));
  assert.equal(
    text,
    [
      "Relay calls: 4 (1 answered, 1 failed, 1 not sent, 1 unknown, 900 refused inside the program (over its limit)).",
      "- #2 read_issue: error: relay: not found",
      "- #3 read_issue: not sent",
      "- #4 read_issue: unknown",
    ].join("\n"),
  );
  assert.equal(callsText(report()), "Relay calls: none.");
});

Deno.test("the end: returned, or not, and why", () => {
  assert.equal(endText(report()), "The program returned.");
  assert.equal(
    endText(report({ end: "timeout", error: "the program ran past its time limit of 30000 ms" })),
    "The program did not finish (timeout): the program ran past its time limit of 30000 ms.",
  );
});

Deno.test("the result: isError unless it returned; the text leads with the end, the writes, the calls", () => {
  const done = runResult(
    report({ logs: [{ level: "log", text: "found 2" }, { level: "warn", text: "late" }] }),
  );
  assert.equal(done.isError, false);
  assert.match(
    String(done.content[0].text),
    /^The program returned\.\nNo write was sent\.\nRelay calls: none\.\n\nReturned:\n\{\n {2}"n": 1\n\}\n\nLogs:\nfound 2\n\[warn\] late$/,
  );
  assert.deepEqual(done.structuredContent, {
    ok: true,
    end: "returned",
    writesSent: 0,
    calls: [],
    callsRefused: 0,
    logs: [{ level: "log", text: "found 2" }, { level: "warn", text: "late" }],
    logsDropped: 0,
    value: { n: 1 },
  });
  const failed = runResult(
    report({ end: "threw", error: "Error: no", value: undefined, calls: [ok("list_rooms")] }),
  );
  assert.equal(failed.isError, true);
  assert.equal((failed.structuredContent as { ok: boolean }).ok, false);
  assert.match(String(failed.content[0].text), /^The program did not finish \(threw\): Error: no\./);
});

Deno.test("bounds: the calls and the writes are kept whole; the logs, then the value, give way", () => {
  const calls: CallReport[] = Array.from(
    { length: 100 },
    (_, i) =>
      i === 0
        ? { tool: "post_message", state: "ok", write: { outcome: "accepted", event: EVENT } }
        : { tool: "read_issue", state: "error", error: "x".repeat(5_000) },
  );
  const big = runResult(report({
    value: "v".repeat(900 * 1024),
    logs: Array.from({ length: 50 }, () => ({ level: "log", text: "l".repeat(2_000) })),
    calls,
  }));
  const structured = big.structuredContent as Record<string, unknown>;
  const bytes = new TextEncoder().encode(JSON.stringify(structured)).length;
  assert.ok(bytes <= 256 * 1024, `${bytes} bytes`);
  assert.equal((structured.calls as CallReport[]).length, 100);
  assert.ok((structured.calls as CallReport[]).every((call) => (call.error?.length ?? 0) <= 501));
  assert.equal(structured.writesSent, 1);
  assert.deepEqual(structured.logs, []);
  assert.equal(structured.logsDropped, 50);
  assert.equal(structured.valueTruncated, true);
  const text = String(big.content[0].text);
  assert.ok(new TextEncoder().encode(text).length <= 64 * 1024);
  assert.match(text, /^The program returned\.\n1 write was sent:\n- post_message event/);
  assert.match(text, /\[cut here: the whole is in structuredContent\]$/);
});

Deno.test("writesSent agrees with the text for every outcome, however the program ended", () => {
  const write = (outcome: string, why?: string) =>
    ({ outcome, event: EVENT, ...(why ? { why } : {}) }) as CallReport["write"];
  const rows: [string, CallReport, number][] = [
    ["accepted", { tool: "post_message", state: "ok", write: write("accepted") }, 1],
    ["refused by the relay", {
      tool: "post_message",
      state: "error",
      error: "relay: blocked: spam",
      write: write("refused", "blocked: spam"),
    }, 1],
    ["its answer lost", {
      tool: "post_message",
      state: "error",
      error: "transport: the connection closed before the answer",
      write: write("unknown", "the connection closed before the answer"),
    }, 1],
    ["cut off by a limit or a cancel after it left", {
      tool: "post_message",
      state: "unknown",
      write: write("unknown", "sent; the relay had not answered when this was said"),
    }, 1],
    ["cut off before it left", { tool: "post_message", state: "unknown" }, 0],
    ["held: declined", {
      tool: "post_message",
      state: "error",
      error: "permission: declined at the host: nothing was signed",
      write: { outcome: "held", why: "declined at the host" },
    }, 0],
    ["held: the question timed out", {
      tool: "post_message",
      state: "error",
      write: { outcome: "held", why: "no answer in time at the host" },
    }, 0],
    ["held: over budget", {
      tool: "post_message",
      state: "error",
      write: { outcome: "held", why: "write budget spent" },
    }, 0],
    ["held: cancelled while the person was asked", {
      tool: "post_message",
      state: "error",
      write: { outcome: "held", why: "withdrawn: the program was cancelled" },
    }, 0],
    ["signed but never sent", { tool: "post_message", state: "error", write: write("not sent") }, 0],
    ["answered by its idempotency key", {
      tool: "post_message",
      state: "ok",
      key: "k",
      replayed: true,
      write: write("accepted"),
    }, 0],
  ];
  for (const end of ["returned", "threw", "timeout", "cancelled", "calls"] as const) {
    for (const [what, call, sent] of rows) {
      const result = runResult(report({ end, calls: [ok("list_rooms"), call] }));
      const structured = result.structuredContent as { writesSent: number };
      const text = String(result.content[0].text);
      assert.equal(structured.writesSent, sent, `${what}, ${end}: writesSent`);
      assert.ok(
        sent === 0 ? text.includes("\nNo write was sent") : text.includes(`\n${sent} write was sent:\n`),
        `${what}, ${end}: the text says the same\n${text}`,
      );
    }
  }
});

Deno.test("writes answered by a key: said apart, never counted as sent; keys dropped said; the table's hash", () => {
  const calls: CallReport[] = [
    {
      tool: "post_message",
      state: "ok",
      key: "greet",
      replayed: true,
      write: { outcome: "accepted", event: EVENT },
    },
    {
      tool: "react",
      state: "ok",
      key: "r1",
      write: { outcome: "accepted", event: EVENT },
      keyNote: 'idempotency key "old" (react) was dropped: at most 1000 are kept',
    },
  ];
  const result = runResult(report({ calls, tableHash: "0123456789ab" }));
  assert.equal(
    String(result.content[0].text).split("\n\n")[0],
    [
      "The program returned.",
      "1 write was sent:",
      `- react event ${EVENT}: accepted by the relay`,
      "Not sent again, answered by an idempotency key from earlier in this session:",
      `- post_message event ${EVENT} (key "greet"): accepted by the relay`,
      'Note: idempotency key "old" (react) was dropped: at most 1000 are kept.',
      "Relay calls: 2 (2 answered (1 by an idempotency key, no relay call)).",
      "Table hash: 0123456789ab.",
    ].join("\n"),
  );
  const structured = result.structuredContent as Record<string, unknown>;
  assert.equal(structured.writesSent, 1);
  assert.equal(structured.writesReplayed, 1);
  assert.equal(structured.tableHash, "0123456789ab");
  assert.deepEqual((structured.calls as CallReport[])[0], calls[0]);
  const none = runResult(report({ calls: [calls[0]] }));
  assert.match(
    String(none.content[0].text),
    /^The program returned\.\nNo write was sent\.\nNot sent again, answered/,
  );
});
