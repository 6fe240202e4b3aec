// Byte plumbing for the test servers that stand between tinyagent and a relay (the CONNECT proxy,
// the stall front): writing whole, closing without caring whether it was closed, and piping one
// side to the other.

export function closeQuietly(conn: { close(): void }): void {
  try {
    conn.close();
  } catch {
    // already closed
  }
}

export async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
}

/** Copies until EOF, then half-closes; an error closes both sides. */
export async function pump(from: Deno.Conn, to: Deno.Conn): Promise<void> {
  const buffer = new Uint8Array(64 * 1024);
  try {
    for (;;) {
      const n = await from.read(buffer);
      if (n === null) break;
      await writeAll(to, buffer.subarray(0, n));
    }
    await to.closeWrite();
  } catch {
    closeQuietly(from);
    closeQuietly(to);
  }
}
