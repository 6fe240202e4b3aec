// Errors (facade.md, "Errors"): how a relay answer becomes a result or a
// `permission:` / `transport:` / `relay:` failure, and the permission mark on
// relay tool errors.

import assert from "node:assert/strict";
import { toolError } from "../../lib/wire/mcp.ts";
import {
  failureText,
  interpretAnswer,
  markPermission,
  MAX_RETRY_AFTER,
  type RelayAnswer,
  retryAfterSeconds,
} from "../../lib/relay/answer.ts";
import {
  INVALID_PARAMS,
  PERMISSION_MARKED,
  PERMISSION_PREFIX,
  RELAY_PREFIX,
  TRANSPORT_PREFIX,
  UNKNOWN_TOOL,
} from "../support/contract.ts";

const JSON_TYPE = "application/json";

function rpcResult(id: unknown, result: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, result });
}

function rpcError(id: unknown, code: number, message: string): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } });
}

function failure(answer: RelayAnswer) {
  assert.equal(answer.ok, false, `expected a failure, got ${JSON.stringify(answer)}`);
  if (answer.ok) throw new Error("unreachable");
  return answer.failure;
}

const TOOL_RESULT = {
  content: [{ type: "text", text: "3 rooms" }],
  structuredContent: { rooms: ["a", "b", "c"] },
  isError: false,
};

Deno.test("interpretAnswer: 200 answers", async (t) => {
  await t.step("a JSON-RPC result for our id is the result", () => {
    const answer = interpretAnswer(200, JSON_TYPE, rpcResult(7, TOOL_RESULT), 7);
    assert.deepEqual(answer, { ok: true, result: TOOL_RESULT });
  });
  await t.step("a charset parameter on the content type is fine", () => {
    const answer = interpretAnswer(200, "application/json; charset=utf-8", rpcResult(3, TOOL_RESULT), 3);
    assert.equal(answer.ok, true);
  });
  await t.step("a result for another id is a transport failure", () => {
    for (const id of [8, "7", null]) {
      const f = failure(interpretAnswer(200, JSON_TYPE, rpcResult(id, TOOL_RESULT), 7));
      assert.equal(f.class, "transport", `id ${JSON.stringify(id)}`);
      assert.match(failureText(f), /^transport: /);
    }
  });
  await t.step("a body that is not JSON is a transport failure", () => {
    const f = failure(interpretAnswer(200, JSON_TYPE, "{not json", 1));
    assert.equal(f.class, "transport");
    assert.match(failureText(f), /^transport: .*JSON/);
  });
  await t.step("a wrong content type is a transport failure", () => {
    for (const type of ["text/html", "text/event-stream", "text/plain; charset=utf-8", null]) {
      const f = failure(interpretAnswer(200, type, rpcResult(1, TOOL_RESULT), 1));
      assert.equal(f.class, "transport", String(type));
      assert.match(failureText(f), /^transport: /);
    }
  });
  await t.step("JSON that is not a JSON-RPC result is a transport failure", () => {
    for (
      const body of [
        JSON.stringify({ jsonrpc: "2.0", id: 1 }),
        JSON.stringify({ jsonrpc: "2.0", id: 1, result: "text" }),
        JSON.stringify({ jsonrpc: "2.0", id: 1, result: [TOOL_RESULT] }),
        JSON.stringify({ id: 1, result: TOOL_RESULT }),
        JSON.stringify([{ jsonrpc: "2.0", id: 1, result: TOOL_RESULT }]),
        "null",
        "42",
      ]
    ) {
      assert.equal(failure(interpretAnswer(200, JSON_TYPE, body, 1)).class, "transport", body);
    }
  });
  await t.step("a JSON-RPC error is the relay's, with its message", () => {
    const f = failure(interpretAnswer(200, JSON_TYPE, rpcError(4, -32000, "something broke"), 4));
    assert.equal(f.class, "relay");
    assert.equal(failureText(f), `${RELAY_PREFIX}something broke`);
    assert.ok(!f.unknownTool);
  });
});

Deno.test("interpretAnswer: 4xx answers", async (t) => {
  await t.step(
    `400 ${INVALID_PARAMS} \`${UNKNOWN_TOOL}: x\` is a relay failure marking the table stale`,
    () => {
      const f = failure(
        interpretAnswer(400, JSON_TYPE, rpcError(2, INVALID_PARAMS, `${UNKNOWN_TOOL}: x`), 2),
      );
      assert.equal(f.class, "relay");
      assert.equal(f.unknownTool, true);
      assert.equal(failureText(f), `${RELAY_PREFIX}${UNKNOWN_TOOL}: x`);
    },
  );
  await t.step(`another ${INVALID_PARAMS} does not mark the table stale`, () => {
    const f = failure(interpretAnswer(400, JSON_TYPE, rpcError(2, INVALID_PARAMS, "Invalid params: id"), 2));
    assert.equal(f.class, "relay");
    assert.ok(!f.unknownTool);
    assert.equal(failureText(f), `${RELAY_PREFIX}Invalid params: id`);
  });
  await t.step("`Unknown tool` with another code does not mark the table stale", () => {
    const f = failure(interpretAnswer(400, JSON_TYPE, rpcError(2, -32601, `${UNKNOWN_TOOL}: x`), 2));
    assert.ok(!f.unknownTool);
  });
  await t.step("401 and 403 are permission failures with the relay's message", () => {
    for (
      const [status, message] of [
        [401, "auth-required: token expired"],
        [401, "auth-required: payload hash mismatch"],
        [403, "restricted: origin not allowed"],
        [403, "blocked: this key is banned"],
      ] as const
    ) {
      // The relay's early errors carry no id.
      const body = JSON.stringify({ jsonrpc: "2.0", error: { code: -32600, message } });
      const f = failure(interpretAnswer(status, JSON_TYPE, body, 9));
      assert.equal(f.class, "permission", `${status}`);
      assert.equal(failureText(f), `${PERMISSION_PREFIX}${message}`);
    }
  });
  await t.step("401 and 403 without a JSON body are still permission failures", () => {
    for (const status of [401, 403]) {
      assert.equal(failure(interpretAnswer(status, "text/plain", "", 1)).class, "permission");
      const f = failure(interpretAnswer(status, "text/plain", "go away", 1));
      assert.equal(f.class, "permission");
      assert.match(failureText(f), /^permission: .*go away/);
    }
  });
  await t.step("404 with a JSON-RPC error is the relay's, with its message", () => {
    const f = failure(interpretAnswer(404, JSON_TYPE, rpcError(5, -32601, "Method not found: x"), 5));
    assert.equal(f.class, "relay");
    assert.equal(failureText(f), `${RELAY_PREFIX}Method not found: x`);
  });
  await t.step("404 with an HTML page is a relay failure naming the status, on one line", () => {
    const html = "<!doctype html>\n<html>\n<body>\n<h1>404 Not Found</h1>\n" + "x".repeat(5000) +
      "\n</body></html>";
    const f = failure(interpretAnswer(404, "text/html", html, 5));
    assert.equal(f.class, "relay");
    assert.match(failureText(f), /^relay: /);
    assert.match(f.detail, /404/);
    assert.ok(!f.detail.includes("\n"), "single line");
    assert.ok(f.detail.length < 400, `bounded excerpt, got ${f.detail.length} chars`);
  });
  await t.step("429 is a relay failure, neither permission nor transport", () => {
    const f = failure(interpretAnswer(429, "text/plain", "rate limited", 5));
    assert.equal(f.class, "relay");
    assert.equal(f.detail, "rate-limited: rate limited; retry later");
    assert.equal(f.retryAfter, undefined);
  });
  await t.step("429 says when to retry, from its Retry-After, in words and as a number", () => {
    const body = rpcError(5, -32000, "rate-limited: slow down");
    const f = failure(interpretAnswer(429, JSON_TYPE, body, 5, "7"));
    assert.equal(failureText(f), "relay: rate-limited: slow down; retry after 7 s");
    assert.equal(f.retryAfter, 7);
    // The relay's words without the mark get it; an empty body says the status.
    assert.equal(
      failure(interpretAnswer(429, JSON_TYPE, rpcError(5, -32000, "slow"), 5, "0")).detail,
      "rate-limited: slow; retry after 0 s",
    );
    assert.equal(
      failure(interpretAnswer(429, null, "", 5, "2")).detail,
      "rate-limited: HTTP 429; retry after 2 s",
    );
  });
  await t.step("Retry-After: seconds or an HTTP-date, bounded; anything else is no wait named", () => {
    const now = Date.parse("2026-12-02T10:00:00Z");
    const table: [string | undefined, number | undefined][] = [
      ["0", 0],
      [" 30 ", 30],
      ["86400", 86_400],
      ["999999999999", MAX_RETRY_AFTER],
      ["Wed, 02 Dec 2026 10:00:41 GMT", 41],
      ["Wed, 02 Dec 2026 09:00:00 GMT", 0],
      ["Thu, 01 Jan 2099 00:00:00 GMT", MAX_RETRY_AFTER],
      ["-1", undefined],
      ["1.5", undefined],
      ["soon", undefined],
      ["9".repeat(13), undefined],
      ["Wed, 02 Dec 2026 10:00:41", undefined],
      ["", undefined],
      [undefined, undefined],
    ];
    for (const [header, seconds] of table) assert.equal(retryAfterSeconds(header, now), seconds, `${header}`);
  });
  await t.step("a wait comes only from a 429's Retry-After, never from words", () => {
    const body = rpcError(5, -32000, "not found: room; retry after 3 s");
    assert.equal(failure(interpretAnswer(200, JSON_TYPE, body, 5, "3")).retryAfter, undefined);
    assert.equal(
      failure(interpretAnswer(503, "text/plain", "retry after 3 s", 5, "3")).retryAfter,
      undefined,
    );
  });
  await t.step("other 4xx without JSON are relay failures naming the status", () => {
    for (const status of [400, 405, 406, 409, 413, 415]) {
      const f = failure(interpretAnswer(status, "text/plain", "", 5));
      assert.equal(f.class, "relay", `${status}`);
      assert.match(f.detail, new RegExp(`${status}`));
    }
  });
});

Deno.test("interpretAnswer: 5xx answers are transport failures", async (t) => {
  for (const status of [500, 502, 503, 504]) {
    await t.step(`${status}`, () => {
      const plain = failure(interpretAnswer(status, "text/html", "<h1>Bad Gateway</h1>", 5));
      assert.equal(plain.class, "transport");
      assert.match(failureText(plain), new RegExp(`^transport: .*${status}`));
      const empty = failure(interpretAnswer(status, null, "", 5));
      assert.equal(empty.class, "transport");
      assert.match(empty.detail, new RegExp(`${status}`));
      const rpc = failure(interpretAnswer(status, JSON_TYPE, rpcError(5, -32603, "database locked"), 5));
      assert.equal(rpc.class, "transport");
      assert.match(failureText(rpc), /^transport: .*database locked/);
      assert.ok(!rpc.unknownTool);
    });
  }
  await t.step("a 5xx carrying `Unknown tool` is still transport", () => {
    const f = failure(interpretAnswer(500, JSON_TYPE, rpcError(5, INVALID_PARAMS, `${UNKNOWN_TOOL}: x`), 5));
    assert.equal(f.class, "transport");
  });
});

Deno.test("failureText is `<class>: <detail>`", () => {
  assert.equal(
    failureText({ class: "permission", detail: "restricted: no" }),
    `${PERMISSION_PREFIX}restricted: no`,
  );
  assert.equal(failureText({ class: "transport", detail: "timeout" }), `${TRANSPORT_PREFIX}timeout`);
  assert.equal(failureText({ class: "relay", detail: "boom" }), `${RELAY_PREFIX}boom`);
});

Deno.test("toolError is an isError result with one text block", () => {
  assert.deepEqual(toolError("transport: x"), {
    content: [{ type: "text", text: "transport: x" }],
    isError: true,
  });
  assert.deepEqual(toolError("no", { a: 1 }), {
    content: [{ type: "text", text: "no" }],
    isError: true,
    structuredContent: { a: 1 },
  });
});

Deno.test("markPermission", async (t) => {
  for (const prefix of PERMISSION_MARKED) {
    await t.step(`\`${prefix}\` in a text block is prefixed with permission:`, () => {
      const text = `${prefix} agent grant does not allow kind 9`;
      const result = { content: [{ type: "text", text }], isError: true };
      const original = structuredClone(result);
      const marked = markPermission(result);
      assert.deepEqual(marked, {
        content: [{ type: "text", text: `${PERMISSION_PREFIX}${text}` }],
        isError: true,
      });
      assert.deepEqual(result, original, "the input is not modified");
    });
    await t.step(`\`${prefix}\` in structuredContent.message is prefixed with permission:`, () => {
      const message = `${prefix} not a member`;
      const result = {
        content: [{ type: "text", text: "the call failed" }],
        structuredContent: { message, code: "denied", nested: { message } },
        isError: true,
      };
      const marked = markPermission(result);
      assert.deepEqual(marked.structuredContent, {
        message: `${PERMISSION_PREFIX}${message}`,
        code: "denied",
        nested: { message },
      });
      assert.deepEqual(marked.content, result.content);
      assert.equal(marked.isError, true);
    });
  }
  await t.step("both places at once, and every matching text block", () => {
    const result = {
      content: [
        { type: "text", text: "restricted: a" },
        { type: "image", data: "restricted: not text", mimeType: "image/png" },
        { type: "text", text: "ordinary" },
        { type: "text", text: "auth-required: b" },
      ],
      structuredContent: { message: "restricted: a" },
      isError: true,
    };
    assert.deepEqual(markPermission(result), {
      content: [
        { type: "text", text: `${PERMISSION_PREFIX}restricted: a` },
        { type: "image", data: "restricted: not text", mimeType: "image/png" },
        { type: "text", text: "ordinary" },
        { type: "text", text: `${PERMISSION_PREFIX}auth-required: b` },
      ],
      structuredContent: { message: `${PERMISSION_PREFIX}restricted: a` },
      isError: true,
    });
  });
  await t.step("other texts are left alone", () => {
    for (
      const text of [
        "invalid: bad room",
        "error: restricted: inside",
        " restricted: leading space",
        "Restricted: capital",
        "AUTH-REQUIRED: capital",
        "restricted without colon",
        `${PERMISSION_PREFIX}restricted: already marked`,
        "",
      ]
    ) {
      const result = {
        content: [{ type: "text", text }],
        structuredContent: { message: text },
        isError: true,
      };
      assert.deepEqual(markPermission(result), structuredClone(result), JSON.stringify(text));
    }
  });
  await t.step("results without isError are returned unchanged", () => {
    for (const isError of [undefined, false, "true", 1]) {
      const result: Record<string, unknown> = {
        content: [{ type: "text", text: "restricted: quoted from a message" }],
        structuredContent: { message: "auth-required: quoted" },
      };
      if (isError !== undefined) result.isError = isError;
      const copy = structuredClone(result);
      assert.deepEqual(markPermission(result), copy, `isError ${JSON.stringify(isError)}`);
    }
  });
  await t.step("odd shapes do not throw", () => {
    const result = { content: "restricted: not an array", structuredContent: "restricted: x", isError: true };
    assert.deepEqual(markPermission(result), result);
    const noMessage = { content: [{ type: "text" }], structuredContent: { message: 5 }, isError: true };
    assert.deepEqual(markPermission(noMessage), noMessage);
  });
});
