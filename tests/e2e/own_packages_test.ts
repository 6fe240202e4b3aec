// tinyagent's own packages missing (run from source with a Deno cache the process cannot fill): a
// clear stop that says what failed to load and how to fix it, never blamed on the relay. The
// unreachable registry is an empty DENO_DIR with --cached-only.

import assert from "node:assert/strict";
import { shippedFlags } from "../../scripts/shipped_flags.ts";
import { startStrictRelay } from "../support/strict_relay/mod.ts";
import { newKey, runOnce, Tinyagent } from "../support/tinyagent.ts";

const PACKAGE_MESSAGE =
  /cannot load tinyagent's own signing code \(npm package (nostr-tools|@noble\/hashes)@[\d.]+\)/;

function assertPackageMessage(stderr: string): void {
  assert.match(stderr, PACKAGE_MESSAGE);
  assert.match(stderr, /Not a relay problem/);
  assert.match(stderr, /deno cache main\.ts/);
  assert.match(stderr, /DENO_CERT or NODE_EXTRA_CA_CERTS/);
  assert.match(stderr, /The release binary carries its packages/);
  assert.doesNotMatch(stderr, /(transport|permission|relay): |internal error|tools\/list: /);
}

Deno.test("a cold package cache is said as such, never as a relay error", async (t) => {
  const cache = await Deno.makeTempDir({ prefix: "tinyagent-cold-cache-" });
  const relay = await startStrictRelay();
  const key = newKey();
  const flags = [...shippedFlags(), "--cached-only"];
  const env = { TINY_PRIVATE_KEY: key.hex, DENO_DIR: cache };
  try {
    await t.step(
      "mcp: the handshake is answered, then a clear stop with what to fix; the relay hears nothing",
      async () => {
        const facade = new Tinyagent({ flags, args: ["mcp", "--relay", relay.url], env });
        try {
          const init = await facade.request("initialize", {
            protocolVersion: "2025-06-18",
            capabilities: {},
          });
          assert.ok(init.result);
          await facade.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
          const status = await facade.child.status;
          assert.equal(status.code, 1);
          const output = await facade.finish();
          assertPackageMessage(output.stderr);
          assert.equal(output.lines.length, 1, "the handshake's answer, and no answer blaming the relay");
          assert.equal(relay.requests.length, 0);
        } finally {
          await facade.kill();
        }
      },
    );
    for (const args of [["diagnose", "--relay", relay.url], ["tools", "--relay", relay.url], ["keygen"]]) {
      await t.step(`${args[0]}: the same message, status 1`, async () => {
        const run = await runOnce({ flags, args, env });
        assert.equal(run.code, 1, run.stderr);
        assertPackageMessage(run.stderr);
        assert.equal(run.stdout, "");
      });
    }
  } finally {
    await relay.close();
    await Deno.remove(cache, { recursive: true });
  }
});
