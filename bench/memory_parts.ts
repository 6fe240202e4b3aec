// The parts of an idle mcp session, added one at a time: bench/empty.ts after the parts named in its
// argument (a comma-separated list, in this order) have loaded in its one thread. The memory benchmark
// starts it with each prefix of the list and reads the difference each part makes.
//
//   timers    Deno's setTimeout, which loads its Node-compatible timers on first use
//   modules   the modules an mcp session evaluates before its first request: the runner, the host side,
//             the transport, the facade and the relay client (imported by URL, so a run without this
//             part never reads their graph)
//   signing   the signing stack as the first tools/list uses it: the key read, its npub, one NIP-98 token
//             (npm packages, libsecp256k1's WebAssembly, one signature)
//
// It needs read permission for the checkout (the modules are imported by URL) and TINY_PRIVATE_KEY.

const LIB = new URL("../lib/", import.meta.url);
const PARTS = ["timers", "modules", "signing"] as const;
const MODULES = [
  "session/run.ts",
  "session/mcp.ts",
  "transport/kept_connection.ts",
  "session/tool_session.ts",
  "relay/client.ts",
];

const asked = (Deno.args[0] ?? "").split(",").filter(Boolean);
const unknown = asked.filter((part) => !(PARTS as readonly string[]).includes(part));
if (unknown.length > 0) throw new Error(`memory_parts: unknown part ${unknown.join(", ")}; parts: ${PARTS}`);

if (asked.includes("timers")) await new Promise((resolve) => setTimeout(resolve, 1));
if (asked.includes("modules")) {
  for (const path of MODULES) await import(new URL(path, LIB).href);
}
if (asked.includes("signing")) {
  const { Signer } = await import(
    new URL("key/signer.ts", LIB).href
  ) as typeof import("../lib/key/signer.ts");
  const made = await Signer.fromValue(Deno.env.get("TINY_PRIVATE_KEY"), "TINY_PRIVATE_KEY");
  if (!made.ok) throw new Error(made.error);
  await made.signer.identity();
  await made.signer.authorization("http://127.0.0.1/mcp", new TextEncoder().encode("{}"));
}

// empty.ts's one line in and one out, written out again: an import would be part of what is measured.
const buffer = new Uint8Array(64 * 1024);
for (;;) {
  const read = await Deno.stdin.read(buffer);
  if (read === null || buffer.subarray(0, read).includes(0x0a)) break;
}
await Deno.stdout.write(new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"result":{}}\n'));
Deno.exit(0);
