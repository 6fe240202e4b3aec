// The tests mirror the tree: every lib/<layer>/<module>.ts with logic of its own has its unit test
// at tests/<layer>/<module>_test.ts, and every unit test there is named after a module. Modules that
// are only wiring or types are listed here with where they are tested end to end.

import assert from "node:assert/strict";

const LIB = new URL("../lib/", import.meta.url);
const TESTS = new URL("./", import.meta.url);

/** Wiring and types: no unit file, and why. */
const WIRING: Record<string, string> = {
  "cli/fatal.ts":
    "an Error with an exit status; every startup failure in e2e/startup_test and e2e/sandbox_test",
  "sandbox/tls_warmup.ts":
    "builds the trust store ahead of the worker; e2e/sandbox_test and e2e/transport_test over TLS",
  "sandbox/worker.ts": "the worker's protocol; e2e/sandbox_test and every run under the shipped flags",
  "sandbox/worker_all.ts": "the compiled binary's worker entry; sandbox/entry_test runs a worker from it",
  "session/all_parts.ts": "every part by literal name; sandbox/entry_test checks it against parts.ts",
  "session/parts.ts": "the parts' names, modules and types; sandbox/worker_entry_test and sandbox/entry_test",
  "session/diagnose_command.ts": "diagnose as a user runs it; e2e/diagnose_test",
  "session/code_mode.ts": "code mode's tools on an mcp session's facade; e2e/code_mode_test",
  "code/prelude.ts": "the guest-side source text; code/sandbox_test and code/guest_test run it in QuickJS",
  "code/packages_named.ts":
    "code mode's packages by literal specifiers; code/packages_test compares them with packages.ts's by name",
  "facade/forward.ts":
    "one call out and back, signed and resubmitted; facade/facade_test drives it, e2e/signing_test",
  "session/mcp.ts":
    "the mcp session: e2e/host_protocol_test, e2e/table_recovery_test, e2e/own_packages_test (the clear stop)",
  "session/tool_commands.ts": "tools and call as a user runs them; e2e/tool_commands_test",
  "session/tool_session.ts": "the one facade mcp, tools and call build; e2e/tool_commands_test compares them",
  "session/listening.ts":
    "what --listen and --approvers add to mcp: e2e/listen_test (the handshake, the channel, tiny_inbox), " +
    "e2e/sdk_channel_test, robustness/listen_faults_test (the stdout pause)",
  "session/listening_parts.ts":
    "the relay side of listening, loaded after the first answer; e2e/listen_test, robustness/listen_faults_test",
  "resources/read_services.ts":
    "types only: what the collection, stat and file reads need of the reader; resources/read_*_test drive them",
  "listen/settings.ts":
    "types only: the listen and approval settings; cli/listen_args_test reads the flags into them",
  "session/resources_session.ts":
    "the resources part, wired: e2e/resources_test, e2e/resources_live_test, robustness/resources_hostile_test, e2e/inspector_test",
  "session/deferred_facade.ts":
    "loads the relay side after the handshake; e2e/transport_test (one kept connection)",
  "session/lifecycle.ts": "the host's end (parent gone, SIGTERM/SIGINT); robustness/stdio_fuzz_test",
  "session/run.ts": "runs each command; the whole e2e/ suite",
  "session/rpc.ts": "the rpc helper's session and call METHOD: e2e/rpc_*_test.ts, robustness/rpc_faults_test",
  "transport/exchange.ts":
    "the exchange types and tooLarge(); transport/http1_test and e2e/relay_protocol_test",
  "wire/identity.ts":
    "the name and deno.json's version; e2e/host_protocol_test (serverInfo), relay/request_test (clientInfo)",
};

function filesIn(dir: URL, suffix: string): string[] {
  try {
    return [...Deno.readDirSync(dir)].filter((e) => e.isFile && e.name.endsWith(suffix)).map((e) => e.name)
      .sort();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}

const layers = [...Deno.readDirSync(LIB)].filter((entry) => entry.isDirectory).map((entry) => entry.name)
  .sort();
const modules = layers.flatMap((layer) =>
  filesIn(new URL(`${layer}/`, LIB), ".ts").map((name) => `${layer}/${name}`)
);

Deno.test("every module with logic of its own has tests/<layer>/<module>_test.ts", () => {
  const missing = modules.filter((module) => {
    if (Object.hasOwn(WIRING, module)) return false;
    return filesIn(new URL(`${module.split("/")[0]}/`, TESTS), "_test.ts")
      .every((name) => name !== module.split("/")[1].replace(/\.ts$/, "_test.ts"));
  });
  assert.deepEqual(missing, []);
});

Deno.test("every unit test under tests/<layer>/ is named after a module of lib/<layer>/", () => {
  const orphans = layers.flatMap((layer) =>
    filesIn(new URL(`${layer}/`, TESTS), "_test.ts")
      .filter((name) => !modules.includes(`${layer}/${name.replace(/_test\.ts$/, ".ts")}`))
      .map((name) => `tests/${layer}/${name}`)
  );
  assert.deepEqual(orphans, []);
});

Deno.test("the wiring list is current: each entry is a module, and none has a unit file", () => {
  for (const module of Object.keys(WIRING)) {
    assert.ok(modules.includes(module), `${module} is not in lib/`);
    const test = new URL(`${module.replace(/\.ts$/, "_test.ts")}`, TESTS);
    assert.throws(
      () => Deno.statSync(test),
      Deno.errors.NotFound,
      `${module} has a unit test: drop it from WIRING`,
    );
  }
});
