// A command's worker holds its command's parts and no others (lib/sandbox/worker_entry.ts): which
// parts each command gets, the entry module that gives them, and that entry run for real under the
// sandbox's permissions.

import assert from "node:assert/strict";
import { firstWordOfWorker } from "../support/worker_start.ts";
import { parseCommand } from "../../lib/cli/args.ts";
import type { SandboxedCommand } from "../../lib/sandbox/confine.ts";
import { partsFor, workerEntryUrl, workerSource } from "../../lib/sandbox/worker_entry.ts";
import { PART_MODULES } from "../../lib/session/parts.ts";

const RELAY = ["--relay", "https://relay.example.test"];
const KEY = "ab".repeat(32);
const command = (...argv: string[]) => parseCommand(argv) as SandboxedCommand;

Deno.test("each command's parts: its session, and what its flags add", () => {
  const table: [string[], string[]][] = [
    [["mcp", ...RELAY], ["mcp", "resources"]],
    [["mcp", ...RELAY, "--listen", "general", "--allow-from", KEY], ["mcp", "listen", "resources"]],
    [["mcp", ...RELAY, "--approvers", KEY, "--home-room", "ops"], ["mcp", "listen", "resources"]],
    [["mcp", ...RELAY, "--code-mode"], ["mcp", "code", "resources"]],
    [["mcp", ...RELAY, "--code-mode", "--listen", "general", "--allow-from", KEY], [
      "mcp",
      "listen",
      "code",
      "resources",
    ]],
    [["rpc", ...RELAY], ["rpc"]],
    [["call", ...RELAY, "identity"], ["rpc"]],
    [["tools", ...RELAY], ["tools"]],
    [["call", ...RELAY, "list_rooms"], ["tools"]],
    [["diagnose", ...RELAY], ["diagnose"]],
    [["whoami"], []],
    [["sandbox-check", ...RELAY], []],
  ];
  for (const [argv, parts] of table) assert.deepEqual(partsFor(command(...argv)), parts, argv.join(" "));
});

Deno.test("the entry imports the worker's protocol and loads each part by its literal URL", () => {
  const lib = new URL("file:///checkout/lib/");
  const source = workerSource(["mcp", "listen"], lib);
  assert.equal(
    source,
    [
      'import { serveWorker } from "file:///checkout/lib/sandbox/worker.ts";',
      "serveWorker({",
      `  mcp: () => import("file:///checkout/lib/${PART_MODULES.mcp}"),`,
      `  listen: () => import("file:///checkout/lib/${PART_MODULES.listen}"),`,
      "});",
    ].join("\n"),
  );
  assert.doesNotMatch(workerSource([], lib), /import\(/, "no part: nothing loaded beyond the protocol");
  // A path with characters a URL escapes stays one string literal in the source.
  assert.match(
    workerSource(["rpc"], new URL('file:///a "b"/lib/')),
    /import\("file:\/\/\/a%20%22b%22\/lib\//,
  );
});

Deno.test("each part module exists and exports what its runner calls", async () => {
  const exported: Record<string, string> = {
    mcp: "mcp",
    listen: "startListening",
    resources: "startResources",
    code: "programTools",
    packages: "NAMED",
    rpc: "rpc",
    tools: "listOffer",
    diagnose: "diagnoseCommand",
  };
  for (const [name, path] of Object.entries(PART_MODULES)) {
    const module = await import(new URL(`../../lib/${path}`, import.meta.url).href);
    // Each part's entry is a function, but the packages' loaders, a table of them.
    const entry = name === "packages" ? module[exported[name]]?.stripper : module[exported[name]];
    assert.equal(typeof entry, "function", `${path} exports ${exported[name]}`);
  }
});

Deno.test("a worker started from a command's entry runs it with no read permission", async () => {
  const url = workerEntryUrl(["diagnose"], new URL("../../lib/", import.meta.url));
  assert.deepEqual(await firstWordOfWorker(url), { type: "ready" });
});
