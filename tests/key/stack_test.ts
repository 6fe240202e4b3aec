// The signing stack loader (lib/key/stack.ts): it loads, once, and a failure to load is said as
// tinyagent's own, with what failed and the fix, never as anything the relay did.

import assert from "node:assert/strict";
import { loadNostr, packageLoadMessage } from "../../lib/key/stack.ts";

Deno.test("the stack loads once: every caller gets the same modules", async () => {
  const [first, second] = await Promise.all([loadNostr(), loadNostr()]);
  assert.equal(first, second);
  assert.equal(await loadNostr(), first);
  assert.equal(first.curve.native, true, "libsecp256k1's WASM, not the fallback");
  assert.equal(typeof first.sha2.sha256, "function");
});

Deno.test("a failed load: the package, the runtime's words, and the fix", async (t) => {
  // What Deno 2.9.6 throws for a package missing from an unreachable cache.
  const runtime = new TypeError(
    "Failed caching npm package 'nostr-tools@2.25.2'\n    0: npm package not found in cache: \"nostr-tools\", --cached-only is specified.",
  );
  const message = packageLoadMessage(runtime);
  await t.step("it names the package and keeps the runtime's reason, on one line", () => {
    assert.ok(
      message.startsWith("cannot load tinyagent's own signing code (npm package nostr-tools@2.25.2): "),
    );
    assert.ok(message.includes('npm package not found in cache: "nostr-tools", --cached-only is specified'));
    assert.ok(!message.includes("\n"), "one line, for a host's log");
    assert.ok(!message.includes(".."), "no doubled full stop");
  });
  await t.step("it says it is not the relay, and what fixes it", () => {
    assert.match(message, /Not a relay problem/);
    assert.match(message, /deno cache main\.ts/);
    assert.match(message, /DENO_CERT or NODE_EXTRA_CA_CERTS/);
    assert.match(message, /deno run --cached-only main\.ts keygen/);
    assert.match(message, /the same DENO_DIR/);
    assert.match(message, /The release binary carries its packages/);
    assert.doesNotMatch(message, /^(transport|permission|relay): /);
  });
  await t.step("an error that names no package still says what failed", () => {
    assert.match(
      packageLoadMessage(new Error("certificate: UnknownIssuer")),
      /^cannot load tinyagent's own signing code: certificate: UnknownIssuer\./,
    );
    assert.match(packageLoadMessage("not an Error"), /not an Error/);
  });
});
