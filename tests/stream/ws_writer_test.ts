// Writing frames (lib/stream/ws_writer.ts) over scripted connections: writes never interleave
// however the connection splits them, a frame made at its turn sees what came before, a stalled
// or failed write is told in words once, and nothing is written after the end.

import assert from "node:assert/strict";
import { FrameWriter } from "../../lib/stream/ws_writer.ts";
import { within } from "../support/waits.ts";

/** A connection that takes at most `max` bytes per write, a moment later; `stall` holds writes until close. */
function pieceConn(max: number, stall = false) {
  const written: number[] = [];
  let release: (() => void) | undefined;
  const closed = new Promise<void>((resolve) => release = resolve);
  return {
    written,
    writes: 0,
    async write(bytes: Uint8Array): Promise<number> {
      this.writes++;
      if (stall) {
        await closed;
        throw new Deno.errors.BadResource("closed");
      }
      await new Promise((resolve) => setTimeout(resolve, 0));
      const n = Math.min(max, bytes.length);
      written.push(...bytes.subarray(0, n));
      return n;
    },
    read: () => Promise.resolve(null),
    close: () => release?.(),
  };
}

Deno.test("writes queued at once go out whole and in order, however the connection splits them", async () => {
  const conn = pieceConn(3);
  const writer = new FrameWriter(conn, 5000, {
    failed: () => assert.fail("no failure"),
    refusal: () => undefined,
  });
  const frames = [10, 1, 25, 7].map((length, i) => new Uint8Array(length).fill(i + 1));
  await within(5000, "the writes", Promise.all(frames.map((frame) => writer.write(frame))));
  assert.deepEqual(conn.written, frames.flatMap((frame) => [...frame]));
});

Deno.test("a frame made at its turn is made after the writes before it completed", async () => {
  const conn = pieceConn(2);
  const writer = new FrameWriter(conn, 5000, {
    failed: () => assert.fail("no failure"),
    refusal: () => undefined,
  });
  const first = writer.write(new Uint8Array(6).fill(9));
  let madeAfter = -1;
  const second = writer.write(() => {
    madeAfter = conn.written.length;
    return Uint8Array.of(1);
  });
  await within(5000, "the writes", Promise.all([first, second]));
  assert.equal(madeAfter, 6, "made once the first frame was all written");
});

Deno.test("a stalled write is told once, within writeMs; it and the writes behind it are refused", async () => {
  const conn = pieceConn(100, true);
  const reasons: string[] = [];
  let ended: Error | undefined;
  const writer = new FrameWriter(conn, 100, {
    failed: (reason) => {
      reasons.push(reason);
      ended = new Error(reason);
      conn.close(); // what the owner does: the close ends the write
    },
    refusal: () => ended,
  });
  const started = Date.now();
  const stalled = writer.write(new Uint8Array(10));
  const behind = writer.write(new Uint8Array(10));
  await assert.rejects(
    within(3000, "the stalled write", stalled),
    /^Error: a write to the relay did not complete within 0\.1 s: the relay is not reading$/,
  );
  await assert.rejects(within(3000, "the write behind", behind), /did not complete within 0\.1 s/);
  const waited = Date.now() - started;
  assert.ok(waited >= 90 && waited < 2000, `failed at writeMs (${waited} ms)`);
  assert.equal(reasons.length, 1);
  assert.equal(conn.writes, 1, "nothing more written after the end");
});

Deno.test("a failed write is told in words; an owner that goes on gets the write resolved", async () => {
  const reasons: string[] = [];
  const conn = { ...pieceConn(10), write: () => Promise.reject(new Error("Broken pipe (os error 32)")) };
  const writer = new FrameWriter(conn, 1000, {
    failed: (reason) => reasons.push(reason),
    refusal: () => undefined,
  });
  await within(3000, "the failed write", writer.write(new Uint8Array(4)));
  assert.deepEqual(reasons, ["writing to the relay failed: Broken pipe (os error 32)"]);
});
