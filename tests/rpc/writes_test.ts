// The helper's writes (lib/rpc/writes.ts), publish and upload, in process against the strict relay
// (and, for answers it never gives, a raw HTTP peer) with a real SignedHttp, Signer and WriteGate:
// each outcome — accepted, refused, no receipt, not sent, unknown, the call's own bound — in its
// exact words, with its receipt line and audit entry; the budget's place given back when signing
// fails; a refused kind held; a file that holds the key refused before anything is sent.

import assert from "node:assert/strict";
import { generateSecretKey, getPublicKey, verifyEvent } from "nostr-tools/pure";
import { nsecEncode } from "nostr-tools/nip19";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { type SignedEvent, Signer } from "../../lib/key/signer.ts";
import type { AuditEntry } from "../../lib/oversight/audit_record.ts";
import { WriteBudget } from "../../lib/oversight/write_budget.ts";
import { WriteGate } from "../../lib/oversight/write_gate.ts";
import { parseRelayUrl, type RelayEndpoint } from "../../lib/relay/endpoint.ts";
import { SignedHttp } from "../../lib/relay/signed_http.ts";
import { RpcError } from "../../lib/rpc/serve.ts";
import { publish, upload, type WriteDeps } from "../../lib/rpc/writes.ts";
import type { JsonObject } from "../../lib/wire/mcp.ts";
import { startStrictRelay } from "../support/strict_relay/mod.ts";
import { within } from "../support/waits.ts";

const secretKey = generateSecretKey();
const keyHex = bytesToHex(secretKey);
async function signerFor(hex: string): Promise<Signer> {
  const result = await Signer.fromValue(hex, "TINY_PRIVATE_KEY");
  assert.ok(result.ok);
  return result.signer;
}
const signer = await signerFor(keyHex);
const encoder = new TextEncoder();

function endpointOf(url: string): RelayEndpoint {
  const parsed = parseRelayUrl(url);
  assert.ok(parsed.ok);
  return parsed.endpoint;
}

/** Everything a write stands on, with the log and the audit entries kept for the test. */
function depsFor(base: string, options: { maxWrites?: number; kinds?: number[]; signer?: Signer } = {}) {
  const endpoint = endpointOf(base);
  const logs: string[] = [];
  const entries: AuditEntry[] = [];
  const budget = new WriteBudget(options.maxWrites);
  const gate = new WriteGate({
    relay: endpoint.base,
    session: "test-session",
    budget,
    where: "terminal",
    audit: { append: (entry) => (entries.push(entry), Promise.resolve()) },
    log: (line) => logs.push(line),
  });
  const http = new SignedHttp({ endpoint, signer, timeoutMs: 10_000 });
  const deps: WriteDeps = {
    endpoint,
    signer: options.signer ?? signer,
    http,
    gate,
    ...(options.kinds ? { kinds: options.kinds } : {}),
  };
  return { deps, logs, entries, budget, http };
}

function never(): AbortSignal {
  return new AbortController().signal;
}

const message = { event: { kind: 9, tags: [["h", "general"]], content: "hello room" } };

/** The error a write rejects with: an RpcError, whose message is what the caller is told. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof RpcError, `an RpcError, not ${error}`);
    return error.message;
  }
  assert.fail("the write went through");
}

/** The text that follows a lost answer: the event's id, and the query that finds it. */
function lostText(event: { id: string; kind: number }): string {
  return `. The signed event ${event.id} (kind ${event.kind}) was sent, but the relay's answer was lost, so ` +
    `whether it was published is unknown; tinyagent did not send it again. Query {"ids":["${event.id}"]} ` +
    `to see whether it is there before publishing the same thing again.`;
}

/** The one event an entry recorded. */
function eventOf(entry: AuditEntry): SignedEvent {
  assert.ok(entry.event, "the entry holds the event");
  return entry.event as unknown as SignedEvent;
}

/**
 * A raw HTTP/1.1 peer: reads each request whole, then does what `reply` says with it — write these
 * bytes, "cut" the connection without a byte of answer, or "hang".
 */
function rawPeer(reply: (head: string, body: Uint8Array) => string | "cut" | "hang") {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.Conn>();
  const requests: { head: string; body: Uint8Array }[] = [];
  const tasks = new Set<Promise<void>>();
  const serve = async (conn: Deno.Conn) => {
    let data = new Uint8Array(0);
    const buffer = new Uint8Array(64 * 1024);
    for (;;) {
      const text = new TextDecoder("latin1").decode(data);
      const end = text.indexOf("\r\n\r\n");
      if (end >= 0) {
        const head = text.slice(0, end);
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (data.length >= end + 4 + length) {
          const body = data.slice(end + 4, end + 4 + length);
          requests.push({ head, body });
          const what = reply(head, body);
          if (what === "cut") return;
          if (what === "hang") {
            await conn.read(buffer).catch(() => null);
            return;
          }
          const bytes = encoder.encode(what);
          for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
          return;
        }
      }
      const n = await conn.read(buffer).catch(() => null);
      if (n === null) return;
      const next = new Uint8Array(data.length + n);
      next.set(data);
      next.set(buffer.subarray(0, n), data.length);
      data = next;
    }
  };
  const loop = (async () => {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch {
        return;
      }
      conns.add(conn);
      const task = serve(conn).catch(() => {}).finally(() => {
        try {
          conn.close();
        } catch {
          // closed
        }
        conns.delete(conn);
        tasks.delete(task);
      });
      tasks.add(task);
    }
  })();
  const port = (listener.addr as Deno.NetAddr).port;
  return {
    base: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      listener.close();
      for (const conn of conns) {
        try {
          conn.close();
        } catch {
          // closed
        }
      }
      await loop;
      await Promise.allSettled([...tasks]);
    },
  };
}

const ok = (body: string, status = "200 OK") =>
  `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n` +
  `Connection: close\r\n\r\n${body}`;

async function closedPort(): Promise<string> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return await Promise.resolve(`http://127.0.0.1:${port}`);
}

Deno.test("publish: signed as given, sent to /events as compact JSON, accepted: receipt and entry", async () => {
  const relay = await startStrictRelay();
  const { deps, logs, entries, http } = depsFor(relay.url);
  try {
    const event = await publish(deps, message, never());
    assert.equal(verifyEvent({ ...event }), true);
    assert.equal(event.pubkey, getPublicKey(secretKey));
    assert.equal(event.kind, 9);
    assert.deepEqual(event.tags, [["h", "general"]]);
    assert.ok(Math.abs(event.created_at - Date.now() / 1000) < 60, "created now");
    const [request] = relay.requests;
    assert.equal(request.method, "POST");
    assert.equal(request.url, `${relay.url}/events`);
    assert.equal(request.headers.get("content-type"), "application/json");
    assert.equal(
      request.bodyText,
      JSON.stringify({
        id: event.id,
        pubkey: event.pubkey,
        created_at: event.created_at,
        kind: 9,
        tags: [["h", "general"]],
        content: "hello room",
        sig: event.sig,
      }),
    );
    assert.deepEqual(relay.events.map((e) => e.id), [event.id]);
    assert.deepEqual(logs, [
      `receipt: publish signed kind 9 event ${event.id} in room "general": "hello room": accepted`,
    ]);
    assert.equal(entries.length, 1);
    const { time, ...entry } = entries[0];
    assert.ok(!Number.isNaN(Date.parse(time)));
    assert.deepEqual(entry, {
      session: "test-session",
      relay: relay.url,
      tool: "publish",
      arguments: message,
      event: { ...event },
      answer: { accepted: true, event_id: event.id, message: "" },
      outcome: "accepted",
    });
    // A time given is kept.
    const dated = await publish(deps, { event: { ...message.event, created_at: 1_600_000_000 } }, never());
    assert.equal(dated.created_at, 1_600_000_000);
  } finally {
    http.close();
    await relay.close();
  }
});

Deno.test("publish refused by the relay: its 400 receipt in the Go peer's words; recorded refused", async () => {
  const relay = await startStrictRelay();
  const { deps, logs, entries, budget, http } = depsFor(relay.url, { maxWrites: 5 });
  relay.setEventGate(() => "restricted: agent grant does not cover kind 9");
  try {
    const error = await refusal(publish(deps, message, never()));
    const event = eventOf(entries[0]);
    const receipt =
      `{"accepted":false,"event_id":"${event.id}","message":"restricted: agent grant does not cover kind 9"}`;
    assert.equal(error, `relay HTTP 400 Bad Request: ${receipt}`);
    assert.equal(entries[0].outcome, "refused");
    assert.equal(entries[0].why, error);
    assert.deepEqual(entries[0].answer, JSON.parse(receipt));
    const shown = error.length > 200 ? `${error.slice(0, 200)}…` : error;
    assert.deepEqual(logs, [
      `receipt: publish signed kind 9 event ${event.id} in room "general": "hello room": refused: ${shown}`,
    ]);
    assert.equal(budget.spent, 1, "signed and sent: the place is spent");
    assert.equal(relay.events.length, 0);
  } finally {
    http.close();
    await relay.close();
  }
});

Deno.test("publish: 2xx answers that are no receipt, or say accepted false", async (t) => {
  let next = "";
  const peer = rawPeer(() => ok(next));
  const { deps, entries, http } = depsFor(peer.base);
  try {
    await t.step("not a receipt: the outcome is unknown, and the caller is told how to look", async () => {
      next = '{"ok":true}';
      const error = await refusal(publish(deps, message, never()));
      const event = eventOf(entries.at(-1)!);
      assert.equal(error, `relay returned an invalid publish receipt${lostText(event)}`);
      assert.equal(entries.at(-1)!.outcome, "unknown");
      assert.equal(entries.at(-1)!.why, "relay returned an invalid publish receipt");
      assert.deepEqual(entries.at(-1)!.answer, { ok: true });
    });
    await t.step("not JSON at all: unknown, the body kept for the log", async () => {
      next = "<html>proxy</html>";
      const error = await refusal(publish(deps, message, never()));
      assert.ok(error.startsWith("relay returned an invalid publish receipt. The signed event "), error);
      assert.deepEqual(entries.at(-1)!.answer, { status: 200, body: "<html>proxy</html>" });
    });
    await t.step("accepted false, no message: refused, in the Go peer's words", async () => {
      next = '{"accepted":false,"message":""}';
      assert.equal(await refusal(publish(deps, message, never())), "relay rejected event");
      assert.equal(entries.at(-1)!.outcome, "refused");
    });
    await t.step("accepted false with a message: that message", async () => {
      next = '{"accepted":false,"message":"pow: difficulty 20 needed"}';
      assert.equal(await refusal(publish(deps, message, never())), "pow: difficulty 20 needed");
    });
    await t.step("accepted true with a duplicate note: published", async () => {
      next = '{"accepted":true,"message":"duplicate: already have this event"}';
      const event = await publish(deps, message, never());
      assert.equal(entries.at(-1)!.outcome, "accepted");
      assert.equal(eventOf(entries.at(-1)!).id, event.id);
    });
    assert.equal(peer.requests.length, 5, "each sent once");
  } finally {
    http.close();
    await peer.close();
  }
});

Deno.test("publish not sent: the relay is not there; safe to publish again, said so", async () => {
  const base = await closedPort();
  const { deps, logs, entries, http } = depsFor(base);
  try {
    const error = await refusal(within(10_000, "the failure", publish(deps, message, never())));
    const event = eventOf(entries[0]);
    assert.ok(error.startsWith(`cannot reach ${base}/events: `), error);
    assert.ok(
      error.endsWith(
        `. The signed event ${event.id} did not reach the relay, so nothing was published; publishing it ` +
          `again is safe.`,
      ),
      error,
    );
    const detail = error.slice(0, error.indexOf(". The signed event"));
    assert.equal(entries[0].outcome, "not sent");
    assert.equal(entries[0].why, detail);
    assert.deepEqual(entries[0].answer, { error: detail });
    assert.match(logs[0], /: not sent: cannot reach /);
  } finally {
    http.close();
  }
});

Deno.test("publish unknown: the request went out and the answer was lost; never sent again", async () => {
  const peer = rawPeer(() => "cut");
  const { deps, logs, entries, http } = depsFor(peer.base);
  try {
    const error = await refusal(within(10_000, "the failure", publish(deps, message, never())));
    const event = eventOf(entries[0]);
    assert.ok(error.startsWith(`no answer from ${peer.base}/events: `), error);
    assert.ok(error.endsWith(lostText(event)), error);
    assert.equal(entries[0].outcome, "unknown");
    assert.match(logs[0], /: outcome unknown: no answer from /);
    assert.equal(peer.requests.length, 1, "sent once");
  } finally {
    http.close();
    await peer.close();
  }
});

Deno.test("publish ended by the call's own bound: its words, not the transport's", async () => {
  const peer = rawPeer(() => "hang");
  const { deps, entries, http } = depsFor(peer.base);
  try {
    const controller = new AbortController();
    const published = publish(deps, message, controller.signal);
    await within(
      5000,
      "the request at the peer",
      (async () => {
        while (peer.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      })(),
    );
    controller.abort(new RpcError("publish: no answer within 0.2 s (--timeout)"));
    const error = await refusal(within(5000, "the failure", published));
    const event = eventOf(entries[0]);
    assert.equal(error, `publish: no answer within 0.2 s (--timeout)${lostText(event)}`);
    assert.equal(entries[0].why, "publish: no answer within 0.2 s (--timeout)");
  } finally {
    http.close();
    await peer.close();
  }
});

Deno.test("publish: a signing that fails says what failed and gives the budget's place back", async () => {
  const relay = await startStrictRelay();
  const failing = {
    sign: () => Promise.reject(new Error("nostr-wasm: Out of memory (resizing 1155072)")),
    mentionsKey: (value: unknown) => signer.mentionsKey(value),
  } as unknown as Signer;
  const broken = depsFor(relay.url, { maxWrites: 1, signer: failing });
  try {
    assert.equal(
      await refusal(publish(broken.deps, message, never())),
      "publish: tinyagent could not sign the event publish asked for (nostr-wasm: Out of memory (resizing " +
        "1155072)), so nothing was published; calling publish again will try once more.",
    );
    assert.equal(broken.budget.spent, 0);
    assert.deepEqual(broken.entries.map((e) => e.outcome), ["held"], "nothing signed nor sent: held");
    assert.equal(relay.requests.length, 0);
    // The one place is free: the same gate signs once with a working signer.
    const working: WriteDeps = { ...broken.deps, signer };
    await publish(working, message, never());
    assert.equal(broken.budget.spent, 1);
    const spent = await refusal(publish(working, message, never()));
    assert.equal(
      spent,
      "publish: permission: write budget spent: 1 event signed by this session (--max-writes 1); nothing was signed",
    );
    assert.equal(broken.entries.at(-1)!.outcome, "held");
    assert.equal(broken.entries.at(-1)!.why, "write budget spent");
    assert.equal(relay.requests.length, 1);
  } finally {
    broken.http.close();
    await relay.close();
  }
});

Deno.test("publish: a kind it may not sign is held, recorded with its template, and nothing is sent", async (t) => {
  const relay = await startStrictRelay();
  const { deps, logs, entries, budget, http } = depsFor(relay.url, { kinds: [9, 1111], maxWrites: 3 });
  try {
    await t.step("outside --kinds", async () => {
      const params = { event: { kind: 1, tags: [], content: "note" } };
      const error = await refusal(publish(deps, params, never()));
      assert.equal(
        error,
        "publish: kind 1 is not one this helper may sign (--kinds 9,1111); nothing was signed",
      );
      const { time: _time, ...entry } = entries.at(-1)!;
      assert.equal(entry.outcome, "held");
      assert.equal(entry.why, error);
      assert.equal(entry.event, undefined);
      assert.deepEqual(entry.arguments, params);
      assert.deepEqual(
        { ...entry.template, created_at: 0 },
        { kind: 1, tags: [], content: "note", created_at: 0 },
      );
      assert.ok(logs.at(-1)!.startsWith("held: publish: "), logs.at(-1));
    });
    await t.step("an AUTH event, whatever --kinds says", async () => {
      const error = await refusal(publish({ ...deps, kinds: undefined }, {
        event: { kind: 22242, tags: [], content: "" },
      }, never()));
      assert.match(error, /^publish: refused to sign a kind 22242 event: it is an authorization/);
      assert.equal(entries.at(-1)!.outcome, "held");
    });
    assert.equal(budget.spent, 0, "nothing signed: no place taken");
    assert.equal(relay.requests.length, 0);
  } finally {
    http.close();
    await relay.close();
  }
});

Deno.test("publish: params that are not an event are refused before anything else", async () => {
  const relay = await startStrictRelay();
  const { deps, entries, http } = depsFor(relay.url);
  try {
    assert.equal(
      await refusal(publish(deps, {}, never())),
      "publish: params.event is required: an object with kind, tags and content",
    );
    assert.equal(
      await refusal(publish(deps, { event: { kind: 70000 } } as JsonObject, never())),
      "publish: event.kind must be a whole number from 0 to 65535",
    );
    assert.equal(entries.length, 0);
    assert.equal(relay.requests.length, 0);
  } finally {
    http.close();
    await relay.close();
  }
});

const uploadParams = (data: Uint8Array, extra: JsonObject = {}): JsonObject => ({
  room: "general",
  filename: "notes/my file.txt",
  type: "text/plain",
  data: data.toBase64(),
  ...extra,
});

Deno.test("upload: the bytes PUT under a proof of the exact URL and their hash; the relay's answer as the result", async () => {
  const relay = await startStrictRelay();
  const { deps, logs, entries, budget, http } = depsFor(relay.url, { maxWrites: 2 });
  try {
    const bytes = encoder.encode("hello, attachments\n");
    const params = uploadParams(bytes);
    const result = await upload(deps, params, never()) as JsonObject;
    const sha = bytesToHex(sha256(bytes));
    assert.equal(result.sha256, sha);
    assert.equal(result.size, bytes.length);
    assert.equal(result.room, "general");
    const [request] = relay.requests;
    assert.equal(request.method, "PUT");
    assert.equal(request.url, `${relay.url}/rooms/general/attachments?filename=my+file.txt`);
    assert.equal(request.headers.get("content-type"), "text/plain");
    assert.deepEqual(request.body, bytes);
    assert.equal(request.auth?.tags.find((tag) => tag[0] === "u")?.[1], request.url);
    assert.equal(request.auth?.tags.find((tag) => tag[0] === "payload")?.[1], sha);
    assert.deepEqual(relay.attachments.get(sha)?.bytes, bytes);
    assert.equal(entries.length, 1);
    assert.equal(entries[0].tool, "upload");
    assert.equal(entries[0].outcome, "accepted");
    assert.deepEqual(entries[0].answer, result);
    assert.deepEqual(entries[0].arguments, params);
    assert.match(
      logs[0],
      /^receipt: upload: a file "notes\/my file.txt" stored in room "general", .*: accepted$/,
    );
    assert.equal(budget.spent, 1, "an upload counts as a write");
    // No type: no Content-Type header (the relay sniffs).
    await upload(deps, uploadParams(encoder.encode("second"), { type: "" }), never());
    assert.equal(relay.requests[1].headers.get("content-type"), null);
  } finally {
    http.close();
    await relay.close();
  }
});

Deno.test("upload refused by the relay: its status and words; recorded refused", async () => {
  const relay = await startStrictRelay();
  const { deps, entries, http } = depsFor(relay.url);
  try {
    const error = await refusal(upload(deps, uploadParams(encoder.encode("x"), { room: "nope" }), never()));
    // The relay looks the room up before it stores anything: a room it does not have is a 404.
    assert.equal(error, "relay HTTP 404 Not Found: not found: room");
    assert.equal(entries[0].outcome, "refused");
    assert.equal(entries[0].why, error);
    assert.deepEqual(entries[0].answer, { status: 404 });
  } finally {
    http.close();
    await relay.close();
  }
});

Deno.test("upload: a 2xx that is not JSON, a relay not there, an answer lost, the call's bound", async (t) => {
  await t.step("not JSON: unknown", async () => {
    const peer = rawPeer(() => ok("stored, thanks"));
    const { deps, entries, http } = depsFor(peer.base);
    try {
      const error = await refusal(upload(deps, uploadParams(encoder.encode("x")), never()));
      assert.equal(error, "decode upload: the relay's answer is not JSON");
      assert.equal(entries[0].outcome, "unknown");
      assert.equal(entries[0].why, error);
    } finally {
      http.close();
      await peer.close();
    }
  });
  await t.step("not there: not sent", async () => {
    const base = await closedPort();
    const { deps, entries, http } = depsFor(base);
    try {
      const error = await refusal(
        within(10_000, "the failure", upload(deps, uploadParams(encoder.encode("x")), never())),
      );
      assert.ok(
        error.startsWith(`cannot reach ${base}/rooms/general/attachments?filename=my+file.txt: `),
        error,
      );
      assert.equal(entries[0].outcome, "not sent");
      assert.deepEqual(entries[0].answer, { error });
    } finally {
      http.close();
    }
  });
  await t.step("lost: unknown, sent once", async () => {
    const peer = rawPeer(() => "cut");
    const { deps, entries, http } = depsFor(peer.base);
    try {
      const error = await refusal(
        within(10_000, "the failure", upload(deps, uploadParams(encoder.encode("x")), never())),
      );
      assert.ok(error.startsWith(`no answer from ${peer.base}/rooms/general/attachments`), error);
      assert.equal(entries[0].outcome, "unknown");
      assert.equal(peer.requests.length, 1);
    } finally {
      http.close();
      await peer.close();
    }
  });
  await t.step("the call's bound: its words", async () => {
    const peer = rawPeer(() => "hang");
    const { deps, entries, http } = depsFor(peer.base);
    try {
      const controller = new AbortController();
      const uploading = upload(deps, uploadParams(encoder.encode("x")), controller.signal);
      await within(
        5000,
        "the request at the peer",
        (async () => {
          while (peer.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
        })(),
      );
      controller.abort(new RpcError("upload: no answer within 0.2 s (--timeout)"));
      assert.equal(
        await refusal(within(5000, "the failure", uploading)),
        "upload: no answer within 0.2 s (--timeout)",
      );
      assert.equal(entries[0].outcome, "unknown");
    } finally {
      http.close();
      await peer.close();
    }
  });
});

Deno.test("upload: a file that holds the key is refused before anything is sent or counted", async (t) => {
  const relay = await startStrictRelay();
  const { deps, entries, budget, http } = depsFor(relay.url, { maxWrites: 1 });
  try {
    const binary = (text: string) => {
      const inner = encoder.encode(text);
      const bytes = new Uint8Array(inner.length + 8);
      bytes.set([0xff, 0x00, 0x89, 0x50], 0);
      bytes.set(inner, 4);
      bytes.set([0xde, 0xad, 0xbe, 0xef], inner.length + 4);
      return bytes;
    };
    for (
      const [how, bytes] of [
        ["hex", encoder.encode(`TINY_PRIVATE_KEY=${keyHex}\n`)],
        ["hex in upper case", encoder.encode(keyHex.toUpperCase())],
        ["nsec", encoder.encode(`my key: ${nsecEncode(secretKey)}`)],
        ["inside binary bytes", binary(keyHex)],
      ] as const
    ) {
      await t.step(how, async () => {
        assert.equal(
          await refusal(upload(deps, uploadParams(bytes), never())),
          "upload: the file holds this agent's private key; refused, nothing was sent",
        );
      });
    }
    assert.equal(relay.requests.length, 0);
    assert.equal(entries.length, 0);
    assert.equal(budget.spent, 0);
    // Another key's hex is nobody's business here: it goes.
    await upload(deps, uploadParams(encoder.encode(bytesToHex(generateSecretKey()))), never());
    assert.equal(relay.requests.length, 1);
    // And the budget, once spent, holds the next one back.
    const error = await refusal(upload(deps, uploadParams(encoder.encode("more")), never()));
    assert.match(error, /^upload: permission: write budget spent: 1 event signed by this session/);
    assert.equal(entries.at(-1)!.outcome, "held");
  } finally {
    http.close();
    await relay.close();
  }
});
