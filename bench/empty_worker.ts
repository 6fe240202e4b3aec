// The cost of a worker alone: bench/empty.ts with one Worker started first, whose module does nothing
// but say it is running. It stands beside tinyagent as shipped, whose sandbox is such a worker, to show
// what a second V8 isolate and its thread cost before any of tinyagent's code is in it.

const worker = new Worker("data:application/javascript,postMessage(0)", { type: "module" });
await new Promise((resolve) => worker.onmessage = resolve);
// empty.ts's one line in and one out, written out again: an import would be part of what is measured.
const buffer = new Uint8Array(64 * 1024);
for (;;) {
  const read = await Deno.stdin.read(buffer);
  if (read === null || buffer.subarray(0, read).includes(0x0a)) break;
}
await Deno.stdout.write(new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"result":{}}\n'));
Deno.exit(0);
