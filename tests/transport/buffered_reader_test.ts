// The connection reader under HTTP/1.1 and the proxy's answer (lib/transport/buffered_reader.ts):
// takeUntil's bound holds however the bytes arrive, want/take hand out exact counts, one read at a
// time, and a read error ends the stream with its cause kept.

import assert from "node:assert/strict";
import { ConnReader } from "../../lib/transport/buffered_reader.ts";
import { ScriptedConn } from "../support/scripted_conn.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const CRLF2 = encoder.encode("\r\n\r\n");
const text = (bytes: Uint8Array | undefined | "too long") =>
  bytes instanceof Uint8Array ? decoder.decode(bytes) : bytes;

/** Splits `whole` into pieces of `size` bytes (the last one shorter). */
function pieces(whole: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < whole.length; at += size) out.push(whole.slice(at, at + size));
  return out;
}

/** Resolves with the promise's value, or "pending" when it has not settled within `ms`. */
async function within<T>(promise: Promise<T>, ms = 100): Promise<T | "pending"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"pending">((resolve) => timer = setTimeout(() => resolve("pending"), ms));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("takeUntil: what comes before the delimiter, the delimiter consumed", async (t) => {
  for (const size of [1, 2, 3, 5, 64]) {
    await t.step(`the same whatever the read size (${size} bytes)`, async () => {
      const reader = new ConnReader(new ScriptedConn(pieces("HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody", size)));
      assert.equal(text(await reader.takeUntil(CRLF2, 1024)), "HTTP/1.1 200 OK\r\nA: b");
      assert.ok(await reader.want(4));
      assert.equal(decoder.decode(reader.take(4)), "body");
    });
  }
  await t.step("two sections in one read are taken one at a time", async () => {
    const reader = new ConnReader(new ScriptedConn(["one\r\n\r\ntwo\r\n\r\n"]));
    assert.equal(text(await reader.takeUntil(CRLF2, 100)), "one");
    assert.equal(reader.available, 7);
    assert.equal(text(await reader.takeUntil(CRLF2, 100)), "two");
    assert.equal(reader.available, 0);
  });
  await t.step("an empty section is empty bytes, not undefined", async () => {
    const reader = new ConnReader(new ScriptedConn(["\r\n\r\n"]));
    assert.equal(text(await reader.takeUntil(CRLF2, 100)), "");
  });
  await t.step("a partial delimiter is not one", async () => {
    const reader = new ConnReader(new ScriptedConn(["a\r\n\rb\r\n", "\r\n"]));
    assert.equal(text(await reader.takeUntil(CRLF2, 100)), "a\r\n\rb");
  });
});

Deno.test("takeUntil: the bound", async (t) => {
  await t.step("a section of exactly `limit` bytes is taken", async () => {
    const reader = new ConnReader(new ScriptedConn([`${"x".repeat(10)}\r\n\r\n`]));
    assert.equal(text(await reader.takeUntil(CRLF2, 10)), "x".repeat(10));
  });
  await t.step(
    "a delimiter found past the limit is too long, though it arrived in the same read",
    async () => {
      const reader = new ConnReader(new ScriptedConn([`${"x".repeat(11)}\r\n\r\n`]));
      assert.equal(await reader.takeUntil(CRLF2, 10), "too long");
    },
  );
  await t.step("too long whatever the read size, down to one byte", async () => {
    for (const size of [1, 4, 7, 11, 15, 1000]) {
      const reader = new ConnReader(new ScriptedConn(pieces(`${"x".repeat(11)}\r\n\r\n`, size)));
      assert.equal(await reader.takeUntil(CRLF2, 10), "too long", `read size ${size}`);
    }
  });
  await t.step("too long as soon as the limit is passed, without waiting for more", async () => {
    const conn = new ScriptedConn(["x".repeat(11)], "stall");
    const reader = new ConnReader(conn);
    assert.equal(await within(reader.takeUntil(CRLF2, 10)), "too long");
    conn.close();
  });
  await t.step("a peer that stalls before the limit keeps the reader waiting, not failing", async () => {
    const conn = new ScriptedConn(["x".repeat(5)], "stall");
    const reader = new ConnReader(conn);
    const taken = reader.takeUntil(CRLF2, 10);
    assert.equal(await within(taken), "pending");
    conn.push("\r\n\r\n");
    assert.equal(text(await taken), "xxxxx");
  });
  await t.step("a bound larger than the buffer: the buffer grows", async () => {
    const big = "y".repeat(200_000);
    const reader = new ConnReader(new ScriptedConn(pieces(`${big}\r\n\r\nrest`, 30_000)));
    assert.equal(text(await reader.takeUntil(CRLF2, 300_000)), big);
    assert.ok(await reader.want(4));
    assert.equal(decoder.decode(reader.take(4)), "rest");
  });
});

Deno.test("takeUntil: the connection ends first", async (t) => {
  await t.step("undefined, and what came stays available", async () => {
    const reader = new ConnReader(new ScriptedConn(["HTTP/1.1 200"]));
    assert.equal(await reader.takeUntil(CRLF2, 100), undefined);
    assert.equal(reader.closed, true);
    assert.equal(reader.error, undefined, "a clean end is no error");
    assert.equal(reader.available, 12);
  });
  await t.step("over the limit before the end is still too long", async () => {
    const reader = new ConnReader(new ScriptedConn(["x".repeat(20)]));
    assert.equal(await reader.takeUntil(CRLF2, 10), "too long");
  });
});

Deno.test("want, take and takeSome", async (t) => {
  await t.step("want waits for as many bytes as asked, across reads", async () => {
    const conn = new ScriptedConn(["ab", "cd"], "stall");
    const reader = new ConnReader(conn);
    assert.equal(await reader.want(4), true);
    assert.equal(decoder.decode(reader.take(3)), "abc");
    assert.equal(reader.available, 1);
    const more = reader.want(2);
    assert.equal(await within(more), "pending");
    conn.push("e");
    assert.equal(await more, true);
    assert.equal(decoder.decode(reader.take(2)), "de");
    conn.close();
  });
  await t.step("want is false when the connection ends first", async () => {
    const reader = new ConnReader(new ScriptedConn(["abc"]));
    assert.equal(await reader.want(4), false);
    assert.equal(await reader.want(3), true, "what came is still there");
  });
  await t.step("take hands out a copy", async () => {
    const reader = new ConnReader(new ScriptedConn(["abcdef"]));
    await reader.want(6);
    const first = reader.take(3);
    const second = reader.take(3);
    first[0] = 0x7a;
    assert.equal(decoder.decode(second), "def");
    assert.equal(decoder.decode(first), "zbc");
  });
  await t.step("takeSome takes what is there, at most max", async () => {
    const reader = new ConnReader(new ScriptedConn(["abcdef"]));
    await reader.want(1);
    assert.equal(decoder.decode(reader.takeSome(4)), "abcd");
    assert.equal(decoder.decode(reader.takeSome(100)), "ef");
    assert.equal(reader.available, 0);
  });
  await t.step("room is made for more once what was read is consumed", async () => {
    const chunk = "z".repeat(40_000);
    const reader = new ConnReader(new ScriptedConn([chunk, chunk, chunk, chunk]));
    let total = 0;
    while (await reader.want(1)) total += reader.takeSome(25_000).length;
    assert.equal(total, 160_000);
  });
});

Deno.test("fill: one read at a time", async () => {
  const conn = new ScriptedConn([], "stall");
  const reader = new ConnReader(conn);
  const a = reader.fill();
  const b = reader.fill();
  assert.equal(a, b, "the same pending read");
  assert.equal(conn.reads, 1);
  conn.push("hi");
  await a;
  assert.equal(reader.available, 2);
  conn.end();
  await reader.fill();
  assert.equal(reader.closed, true);
  const reads = conn.reads;
  await reader.fill();
  assert.equal(conn.reads, reads, "no read once closed");
});

Deno.test("a read error ends the stream and is kept as its cause", async (t) => {
  await t.step("an Error", async () => {
    const conn = new ScriptedConn(["HTTP/1.1 2"], "stall");
    const reader = new ConnReader(conn);
    const taken = reader.takeUntil(CRLF2, 100);
    conn.fail(new Deno.errors.ConnectionReset("connection reset by peer"));
    assert.equal(await taken, undefined);
    assert.equal(reader.closed, true);
    assert.ok(reader.error instanceof Deno.errors.ConnectionReset);
    assert.equal(reader.error?.message, "connection reset by peer");
    assert.equal(await reader.want(11), false);
    assert.equal(reader.available, 10, "what came before the error is still there");
  });
  await t.step("anything else thrown becomes an Error", async () => {
    const conn = new ScriptedConn([]);
    conn.fail("a string");
    const reader = new ConnReader(conn);
    assert.equal(await reader.want(1), false);
    assert.ok(reader.error instanceof Error);
    assert.equal(reader.error?.message, "a string");
  });
});
