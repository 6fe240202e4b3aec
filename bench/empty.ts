// The start-up floor: an empty `deno run` script, started with the same narrow flags as tinyagent.
// It reads one line from stdin and prints one line, then exits. No imports. It reads with
// Deno.stdin.read, the cheapest way; `empty.ts stream` reads stdin as a web stream instead, which
// makes Deno load its streams code first (about 2 ms), for comparison.

const stream = Deno.args[0] === "stream";
if (stream) {
  const reader = Deno.stdin.readable.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done || value.includes(0x0a)) break;
  }
} else {
  const buffer = new Uint8Array(64 * 1024);
  for (;;) {
    const read = await Deno.stdin.read(buffer);
    if (read === null || buffer.subarray(0, read).includes(0x0a)) break;
  }
}
await Deno.stdout.write(new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"result":{}}\n'));
Deno.exit(0);
