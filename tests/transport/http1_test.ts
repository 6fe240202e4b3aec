// The HTTP/1.1 reader as RFC 9112 has it, against a scripted connection: bytes in, outcome out.
// One row per rule and per bound; every malformed answer is a framing failure (the call becomes
// `transport:` and the connection is closed), never a good answer and never a hang.

import assert from "node:assert/strict";
import { Http1Connection, MAX_HEAD_BYTES, MAX_INTERIM_ANSWERS } from "../../lib/transport/http1.ts";
import { MAX_FIELDS } from "../../lib/transport/http1_grammar.ts";
import type { Attempt } from "../../lib/transport/exchange.ts";
import { ScriptedConn } from "../support/scripted_conn.ts";

const encoder = new TextEncoder();

const LIMIT = 1024;

interface Outcome {
  attempt: Attempt;
  conn: ScriptedConn;
  connection: Http1Connection;
}

async function exchange(
  chunks: (string | Uint8Array)[],
  options: { end?: "eof" | "stall"; abortAfterMs?: number } = {},
): Promise<Outcome> {
  const conn = new ScriptedConn(chunks, options.end ?? "eof");
  const connection = new Http1Connection(conn, { authority: "relay.test" });
  const controller = new AbortController();
  const timer = options.abortAfterMs === undefined
    ? undefined
    : setTimeout(() => controller.abort(), options.abortAfterMs);
  try {
    const attempt = await connection.exchange(
      { target: "/mcp", headers: { "Content-Type": "application/json" }, body: encoder.encode("{}") },
      controller.signal,
      LIMIT,
    );
    return { attempt, conn, connection };
  } finally {
    clearTimeout(timer);
  }
}

const head = (status = "HTTP/1.1 200 OK", ...fields: string[]) =>
  `${status}\r\n${fields.map((f) => `${f}\r\n`).join("")}\r\n`;
const sized = (body: string, ...fields: string[]) =>
  head("HTTP/1.1 200 OK", `Content-Length: ${body.length}`, ...fields) + body;
const chunked = (...pieces: string[]) =>
  head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked") + pieces.join("");

type Expect =
  /** An answer; with `reusable`, the peer keeps the connection open afterwards unless `end` says it ends. */
  | { ok: string; reusable?: boolean; status?: number; end?: "eof" }
  | { framing: RegExp }
  | { tooLarge: true };

const ROWS: [string, string[], Expect][] = [
  // Content-Length: 1*DIGIT, repeated only as the same number.
  ["Content-Length", [sized("hello")], { ok: "hello", reusable: true }],
  ["Content-Length as a list of equal values", [head(undefined, "Content-Length: 5, 5") + "hello"], {
    ok: "hello",
  }],
  [
    "two equal Content-Length fields",
    [head(undefined, "Content-Length: 5", "Content-Length: 005") + "hello"],
    {
      ok: "hello",
    },
  ],
  ["Content-Length in hex (0x3e8)", [head(undefined, "Content-Length: 0x5") + "hello"], {
    framing: /Content-Length/,
  }],
  ["Content-Length as an exponent (1e3)", [head(undefined, "Content-Length: 5e0") + "hello"], {
    framing: /Content-Length/,
  }],
  ["Content-Length with a sign (+5)", [head(undefined, "Content-Length: +5") + "hello"], {
    framing: /Content-Length/,
  }],
  ["Content-Length with a fraction (5.0)", [head(undefined, "Content-Length: 5.0") + "hello"], {
    framing: /Content-Length/,
  }],
  ["Content-Length negative", [head(undefined, "Content-Length: -1") + "hello"], {
    framing: /Content-Length/,
  }],
  ["Content-Length empty", [head(undefined, "Content-Length: ") + "hello"], { framing: /Content-Length/ }],
  ["Content-Length with inner space (1 0)", [head(undefined, "Content-Length: 1 0") + "hello"], {
    framing: /Content-Length/,
  }],
  ["conflicting Content-Length values in a list", [head(undefined, "Content-Length: 5, 6") + "hello"], {
    framing: /conflicting Content-Length/,
  }],
  [
    "conflicting Content-Length fields",
    [head(undefined, "Content-Length: 5", "Content-Length: 6") + "hello"],
    {
      framing: /conflicting Content-Length/,
    },
  ],
  ["Content-Length over the answer bound", [head(undefined, `Content-Length: ${LIMIT + 1}`)], {
    tooLarge: true,
  }],
  ["Content-Length of 20 digits", [head(undefined, "Content-Length: 99999999999999999999")], {
    tooLarge: true,
  }],
  ["a body cut short by the close", [head(undefined, "Content-Length: 10") + "hello"], {
    framing: /closed the connection in the middle of the answer/,
  }],

  // chunk-size: 1*HEXDIG, optional extensions, CRLF after the data.
  ["chunked", [chunked("5\r\nhello\r\n", "0\r\n\r\n")], { ok: "hello", reusable: true }],
  ["chunk sizes in either case, with leading zeros", [
    chunked("0A\r\n0123456789\r\n", "000a\r\n0123456789\r\n0\r\n\r\n"),
  ], {
    ok: "01234567890123456789",
  }],
  ["chunk extensions, a token and a quoted string", [
    chunked('5 ; name=value;flag;q="a;\\"b"\r\nhello\r\n', "0;last\r\n\r\n"),
  ], { ok: "hello" }],
  ["trailer fields after the last chunk", [
    chunked("5\r\nhello\r\n", "0\r\nX-Checksum: abc\r\nX-Other: d\r\n\r\n"),
  ], {
    ok: "hello",
  }],
  ["the chunked answer split across reads", [
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chu",
    "nked\r\n\r\n5\r",
    "\nhel",
    "lo\r",
    "\n0\r\n",
    "\r\n",
  ], {
    ok: "hello",
  }],
  ["chunk size in hex notation (0x5)", [chunked("0x5\r\nhello\r\n0\r\n\r\n")], { framing: /chunk-size/ }],
  ["chunk size with a sign (+5)", [chunked("+5\r\nhello\r\n0\r\n\r\n")], { framing: /chunk-size/ }],
  ["chunk size with junk after it (5zz)", [chunked("5zz\r\nhello\r\n0\r\n\r\n")], { framing: /chunk-size/ }],
  ["chunk size after a space ( 5)", [chunked(" 5\r\nhello\r\n0\r\n\r\n")], { framing: /chunk-size/ }],
  ["chunk size before a space (5 )", [chunked("5 \r\nhello\r\n0\r\n\r\n")], { framing: /chunk-size/ }],
  ["an empty chunk-size line", [chunked("\r\nhello\r\n0\r\n\r\n")], { framing: /chunk-size/ }],
  ["an extension without a name (5;)", [chunked("5;\r\nhello\r\n0\r\n\r\n")], { framing: /chunk-size/ }],
  ["an unterminated quoted extension", [chunked('5;a="b\r\nhello\r\n0\r\n\r\n')], { framing: /chunk-size/ }],
  ["chunk data not followed by CRLF", [chunked("5\r\nhelloXX0\r\n\r\n")], {
    framing: /no CRLF after a chunk/,
  }],
  ["chunks over the answer bound", [
    chunked(`${(LIMIT / 2).toString(16)}\r\n${"a".repeat(LIMIT / 2)}\r\n`.repeat(3)),
  ], {
    tooLarge: true,
  }],
  ["a chunk size of 18 hex digits", [chunked("ffffffffffffffffff\r\n")], { tooLarge: true }],
  ["a chunk-size line over 4 KiB", [chunked(`5;${"a".repeat(5000)}\r\nhello\r\n0\r\n\r\n`)], {
    framing: /over-long chunk-size line/,
  }],
  ["trailers that fold a line", [chunked("5\r\nhello\r\n", "0\r\nX-A: b\r\n c\r\n\r\n")], {
    framing: /obs-fold/,
  }],
  ["trailers over 64 KiB", [
    chunked("5\r\nhello\r\n", `0\r\n${`X-A: ${"b".repeat(1000)}\r\n`.repeat(70)}\r\n`),
  ], {
    framing: /trailers over 64 KiB/,
  }],

  // Transfer-Encoding: chunked alone; HTTP/1.0 has none.
  ["a coding other than chunked (gzip)", [head(undefined, "Transfer-Encoding: gzip") + "hello"], {
    framing: /transfer coding "gzip"/,
  }],
  ["chunked after another coding (gzip, chunked)", [
    head(undefined, "Transfer-Encoding: gzip, chunked") + "0\r\n\r\n",
  ], {
    framing: /transfer coding/,
  }],
  ["chunked twice", [
    head(undefined, "Transfer-Encoding: chunked", "Transfer-Encoding: chunked") + "0\r\n\r\n",
  ], {
    framing: /transfer coding/,
  }],
  ["Transfer-Encoding in an HTTP/1.0 answer", [
    head("HTTP/1.0 200 OK", "Transfer-Encoding: chunked") + "0\r\n\r\n",
  ], {
    framing: /HTTP\/1\.0 answer has a Transfer-Encoding/,
  }],
  ["chunked and a Content-Length: chunked wins, the connection is not reused", [
    head(undefined, "Transfer-Encoding: chunked", "Content-Length: 3") + "5\r\nhello\r\n0\r\n\r\n",
  ], { ok: "hello", reusable: false }],

  // The status line: HTTP/1.0 or 1.1, three digits from 100 to 599.
  ["a status line without a reason phrase", [head("HTTP/1.1 200", "Content-Length: 2") + "ok"], { ok: "ok" }],
  ["an empty reason phrase", [head("HTTP/1.1 200 ", "Content-Length: 2") + "ok"], { ok: "ok" }],
  ["a 4xx answer is an answer", [head("HTTP/1.1 404 Not Found", "Content-Length: 2") + "no"], {
    ok: "no",
    status: 404,
  }],
  ["status 099", [head("HTTP/1.1 099 Low", "Content-Length: 0")], { framing: /status 099, outside 100-599/ }],
  ["status 600", [head("HTTP/1.1 600 High", "Content-Length: 0")], {
    framing: /status 600, outside 100-599/,
  }],
  ["a four-digit status", [head("HTTP/1.1 2000 OK", "Content-Length: 0")], { framing: /not HTTP\/1\.1/ }],
  ["a status that is not a number", [head("HTTP/1.1 abc OK", "Content-Length: 0")], {
    framing: /not HTTP\/1\.1/,
  }],
  ["HTTP/2.0 on the status line", [head("HTTP/2.0 200 OK", "Content-Length: 0")], {
    framing: /not HTTP\/1\.1/,
  }],
  ["HTTP/1.2 on the status line", [head("HTTP/1.2 200 OK", "Content-Length: 0")], {
    framing: /not HTTP\/1\.1/,
  }],
  ["a lowercase protocol name", [head("http/1.1 200 OK", "Content-Length: 0")], {
    framing: /not HTTP\/1\.1/,
  }],
  ["a control character in the reason phrase", [head("HTTP/1.1 200 O\x01K", "Content-Length: 0")], {
    framing: /control character in its reason phrase/,
  }],

  // Field lines: a token, a colon, a value with no NUL, CR or LF; no obs-fold.
  ["values with HTAB and obs-text", [head(undefined, "X-A: a\tb\xe9", "Content-Length: 2") + "ok"], {
    ok: "ok",
  }],
  ["a NUL in a header value", [head(undefined, "X-A: a\x00b", "Content-Length: 2") + "ok"], {
    framing: /control character/,
  }],
  ["a bare LF in a header value", [head(undefined, "X-A: a\nb", "Content-Length: 2") + "ok"], {
    framing: /control character/,
  }],
  ["a lone CR in a header value", [head(undefined, "X-A: a\rb", "Content-Length: 2") + "ok"], {
    framing: /control character/,
  }],
  ["a header name with a space (Content Length)", [head(undefined, "Content Length: 2") + "ok"], {
    framing: /malformed header name "Content Length"/,
  }],
  ["whitespace before the colon", [head(undefined, "Content-Length : 2") + "ok"], {
    framing: /malformed header name/,
  }],
  ["an empty header name", [head(undefined, ": x", "Content-Length: 2") + "ok"], {
    framing: /malformed header name/,
  }],
  ["a line without a colon", [head(undefined, "Garbage", "Content-Length: 2") + "ok"], {
    framing: /malformed header name/,
  }],
  ["a folded header line (obs-fold)", [head(undefined, "X-A: a", " b", "Content-Length: 2") + "ok"], {
    framing: /obs-fold/,
  }],
  [`more than ${MAX_FIELDS} header fields`, [
    head(undefined, ...Array.from({ length: MAX_FIELDS }, (_, i) => `X-${i}: v`), "Content-Length: 2") + "ok",
  ], { framing: new RegExp(`more than ${MAX_FIELDS} header fields`) }],
  [
    "a head over 64 KiB",
    [head(undefined, `X-A: ${"a".repeat(MAX_HEAD_BYTES)}`, "Content-Length: 2") + "ok"],
    {
      framing: /head is over 64 KiB/,
    },
  ],

  // Interim answers: skipped, but only so many; 101 is never asked for.
  ["100 Continue and 103 Early Hints before the answer", [
    head("HTTP/1.1 100 Continue") + head("HTTP/1.1 103 Early Hints", "Link: </a>") + sized("ok"),
  ], { ok: "ok" }],
  [`${MAX_INTERIM_ANSWERS} interim answers`, [
    head("HTTP/1.1 100 Continue").repeat(MAX_INTERIM_ANSWERS) + sized("ok"),
  ], {
    ok: "ok",
  }],
  [`${MAX_INTERIM_ANSWERS + 1} interim answers`, [
    head("HTTP/1.1 100 Continue").repeat(MAX_INTERIM_ANSWERS + 1) + sized("ok"),
  ], { framing: /more than \d+ interim/ }],
  ["101 Switching Protocols", [head("HTTP/1.1 101 Switching Protocols", "Upgrade: h2c")], {
    framing: /switched protocols/,
  }],

  // Bodies without a length, and answers without bodies.
  ["an HTTP/1.0 body delimited by the close", [head("HTTP/1.0 200 OK") + "to the end"], {
    ok: "to the end",
    reusable: false,
    end: "eof",
  }],
  ["an HTTP/1.1 body delimited by the close", [head("HTTP/1.1 200 OK") + "to the end"], {
    ok: "to the end",
    reusable: false,
    end: "eof",
  }],
  ["a close-delimited body over the bound", [head("HTTP/1.1 200 OK") + "a".repeat(LIMIT + 1)], {
    tooLarge: true,
  }],
  ["204 carries no body, whatever follows", [head("HTTP/1.1 204 No Content")], {
    ok: "",
    status: 204,
    reusable: true,
  }],
  ["Connection: close is honoured", [sized("ok", "Connection: close")], { ok: "ok", reusable: false }],
  ["HTTP/1.0 keep-alive is honoured", [
    head("HTTP/1.0 200 OK", "Content-Length: 2", "Connection: keep-alive") + "ok",
  ], {
    ok: "ok",
    reusable: true,
  }],
  ["bytes after the answer that nobody asked for", [sized("ok") + "HTTP/1.1 200 OK\r\n"], {
    ok: "ok",
    reusable: false,
  }],
  ["the connection closes before any answer", [], { framing: /closed the connection before any answer/ }],
];

Deno.test("the HTTP/1.1 reader, rule by rule (RFC 9112)", async (t) => {
  for (const [name, chunks, expect] of ROWS) {
    await t.step(name, async () => {
      // A connection that stays open after the answer, as a kept one does, unless the row is about the end.
      const open = "ok" in expect && expect.reusable !== undefined && expect.end === undefined;
      const { attempt, conn, connection } = await exchange(chunks, { end: open ? "stall" : "eof" });
      // Give the idle watch a turn to see what follows the answer.
      await new Promise((resolve) => setTimeout(resolve, 0));
      if ("ok" in expect) {
        assert.ok(attempt.ok, `expected an answer, got ${JSON.stringify(attempt)}`);
        assert.equal(attempt.answer.body, expect.ok);
        assert.equal(attempt.answer.status, expect.status ?? 200);
        if (expect.reusable !== undefined) {
          assert.equal(connection.usable, expect.reusable, "reusable afterwards");
        }
        connection.close();
        return;
      }
      assert.ok(!attempt.ok, `expected a failure, got ${JSON.stringify(attempt).slice(0, 200)}`);
      assert.equal(attempt.unsent, false, "the relay may have read the request: never sent again");
      assert.ok(conn.closed, "a connection whose answer did not end whole is closed");
      assert.equal(connection.usable, false, "and never used again");
      if ("tooLarge" in expect) assert.equal(attempt.tooLarge, true, attempt.detail);
      else assert.match(attempt.detail, expect.framing);
    });
  }
});

Deno.test("the HTTP/1.1 reader: what it writes, and a stalled relay", async (t) => {
  await t.step("one request: the line, Host, the headers, Content-Length, the body", async () => {
    const { conn } = await exchange([sized("ok")]);
    const sent = new TextDecoder().decode(conn.written[0]);
    assert.equal(
      sent,
      "POST /mcp HTTP/1.1\r\nHost: relay.test\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
    );
  });
  for (
    const [name, chunks] of [
      ["no head ever comes", []],
      ["the head stops half-way", ["HTTP/1.1 200 OK\r\nContent-Le"]],
      ["the body stops half-way", [head(undefined, "Content-Length: 10") + "hel"]],
      ["a chunked body stops between chunks", [chunked("5\r\nhello\r\n")]],
    ] as [string, string[]][]
  ) {
    await t.step(`${name}: the call's abort ends it, and the connection is closed`, async () => {
      const { attempt, conn, connection } = await exchange(chunks, { end: "stall", abortAfterMs: 50 });
      assert.ok(!attempt.ok);
      assert.equal(attempt.unsent, false);
      assert.ok(conn.closed);
      assert.equal(connection.usable, false);
    });
  }
  await t.step("a second exchange on a closed connection is refused as unsent", async () => {
    const { connection } = await exchange([sized("ok", "Connection: close")]);
    const again = await connection.exchange(
      { target: "/mcp", headers: {}, body: new Uint8Array() },
      new AbortController().signal,
      LIMIT,
    );
    assert.deepEqual(again, { ok: false, unsent: true, detail: "the connection was closed" });
  });
});
