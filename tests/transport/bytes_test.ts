// Bytes on a connection (lib/transport/bytes.ts): pieces joined, and a write that the connection
// splits still writes every byte, in order.

import assert from "node:assert/strict";
import { concat, writeAll } from "../../lib/transport/bytes.ts";

Deno.test("concat: the pieces in order, empty ones included", () => {
  assert.deepEqual(concat(), new Uint8Array());
  assert.deepEqual(concat(Uint8Array.of(1, 2), new Uint8Array(), Uint8Array.of(3)), Uint8Array.of(1, 2, 3));
  const piece = Uint8Array.of(9);
  const joined = concat(piece);
  joined[0] = 0;
  assert.equal(piece[0], 9, "a copy, not the piece");
});

Deno.test("writeAll: every byte, however the connection splits the write", async (t) => {
  const bytes = Uint8Array.from({ length: 1000 }, (_, i) => i & 0xff);
  for (const most of [1, 7, 999, 1000, 4096]) {
    await t.step(`at most ${most} bytes per write`, async () => {
      const written: number[] = [];
      let calls = 0;
      await writeAll({
        write(chunk: Uint8Array) {
          calls++;
          const n = Math.min(most, chunk.length);
          written.push(...chunk.subarray(0, n));
          return Promise.resolve(n);
        },
      }, bytes);
      assert.deepEqual(Uint8Array.from(written), bytes);
      assert.equal(calls, Math.ceil(bytes.length / Math.min(most, bytes.length)));
    });
  }
  await t.step("nothing to write: no write at all", async () => {
    let calls = 0;
    await writeAll({ write: () => Promise.resolve(calls++) }, new Uint8Array());
    assert.equal(calls, 0);
  });
  await t.step("a failing write rejects", async () => {
    await assert.rejects(
      writeAll({ write: () => Promise.reject(new Deno.errors.BrokenPipe("gone")) }, Uint8Array.of(1)),
      Deno.errors.BrokenPipe,
    );
  });
});
