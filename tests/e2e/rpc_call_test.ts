// The Go peer's other two commands (rpc-facts.md 5): `call --relay URL METHOD [JSON]` runs one
// helper method (a name that is none runs an MCP tool, as before), printing its result as one line
// of JSON; `keygen --json` prints {"pubkey","secret"}.

import assert from "node:assert/strict";
import { getPublicKey, verifyEvent } from "nostr-tools/pure";
import { hexToBytes } from "@noble/hashes/utils.js";
import { startStrictRelay } from "../support/strict_relay/mod.ts";
import { narrowFlags, newKey, runOnce } from "../support/tinyagent.ts";

Deno.test("call METHOD: one helper method, its result one line of JSON; an error on stderr, exit 1", async (t) => {
  const relay = await startStrictRelay();
  const key = newKey();
  const call = (...args: string[]) =>
    runOnce({
      flags: narrowFlags(relay.host),
      args: ["call", "--relay", relay.url, ...args],
      env: { TINY_PRIVATE_KEY: key.hex },
    });
  try {
    await t.step("identity", async () => {
      const { code, stdout } = await call("identity");
      assert.equal(code, 0);
      assert.equal(stdout, `{"pubkey":"${key.pubkey}"}\n`);
    });
    await t.step("publish, then query finds it; --json indents", async () => {
      const published = await call(
        "publish",
        '{"event":{"kind":9,"content":"by hand","tags":[["h","general"]]}}',
      );
      assert.equal(published.code, 0, published.stderr);
      const event = JSON.parse(published.stdout);
      assert.ok(verifyEvent({ ...event }));
      assert.match(published.stderr, /receipt: publish signed kind 9 event/);
      const found = await call("--json", "query", `{"filter":{"ids":["${event.id}"]}}`);
      assert.equal(found.code, 0, found.stderr);
      assert.deepEqual(JSON.parse(found.stdout), [event]);
      assert.match(found.stdout, /^\[\n {2}\{/);
    });
    await t.step("a method's error: on stderr, exit 1, nothing on stdout", async () => {
      const { code, stdout, stderr } = await call("publish", '{"event":{"kind":27235}}');
      assert.equal(code, 1);
      assert.equal(stdout, "");
      assert.match(stderr, /refused to sign a kind 27235 event/);
    });
    await t.step(
      "--kinds narrows publish; --confirm-writes asks at the terminal, and none is here",
      async () => {
        const narrowed = await call("--kinds", "1", "publish", '{"event":{"kind":9}}');
        assert.equal(narrowed.code, 1);
        assert.match(narrowed.stderr, /--kinds 1/);
        const asked = await call(
          "--confirm-writes",
          "publish",
          '{"event":{"kind":9,"tags":[["h","general"]]}}',
        );
        assert.equal(asked.code, 1);
        assert.match(asked.stderr, /nothing was signed/);
      },
    );
    await t.step(
      "usage: subscribe is rpc's; tool flags with a method; a method's flag with a tool",
      async () => {
        for (
          const [args, pattern] of [
            [["subscribe"], /run it under 'tinyagent rpc'/],
            [["--allow-writes", "publish"], /--allow-writes is for the relay's MCP tools/],
            [["--kinds", "9", "list_rooms"], /--kinds narrows what the method publish signs/],
            [["identity", "{nope"], /the arguments are not JSON/],
          ] as const
        ) {
          const { code, stderr } = await call(...args);
          assert.equal(code, 1, args.join(" "));
          assert.match(stderr, pattern);
        }
      },
    );
    await t.step("the params holding the key are refused, unshown", async () => {
      const { code, stdout, stderr } = await call("query", `{"filter":{"authors":["${key.hex}"]}}`);
      assert.equal(code, 1);
      assert.ok(!(stdout + stderr).includes(key.hex));
      assert.match(stderr, /private key/);
    });
    await t.step(
      "diagnose with the plugin's kinds, and rpc with one line on stdin, as docs/hermes-plugin.md shows",
      async () => {
        const report = await call("diagnose", '{"rooms":["general"],"kinds":[9,12,43002,43003,43004,43006]}');
        assert.equal(report.code, 0, report.stderr);
        assert.equal(JSON.parse(report.stdout).relay, relay.url);
        const rpc = await runOnce({
          flags: narrowFlags(relay.host),
          args: ["rpc", "--relay", relay.url],
          env: { TINY_PRIVATE_KEY: key.hex },
          stdin: '{"id":1,"method":"identity","params":{}}\n',
        });
        assert.equal(rpc.code, 0, rpc.stderr);
        assert.equal(rpc.stdout, `{"id":1,"result":{"pubkey":"${key.pubkey}"}}\n`);
      },
    );
    await t.step("a name that is no method is still an MCP tool", async () => {
      const { code, stdout } = await call("--json", "tiny_diagnose");
      assert.equal(code, 0);
      assert.equal(JSON.parse(stdout).structuredContent.verdict, "ok");
    });
  } finally {
    await relay.close();
  }
});

Deno.test("keygen --json: the Go peer's {pubkey, secret} line; keygen alone as before", async () => {
  const { code, stdout, stderr } = await runOnce({ args: ["keygen", "--json"] });
  assert.equal(code, 0, stderr);
  assert.match(stdout, /^\{"pubkey":"[0-9a-f]{64}","secret":"[0-9a-f]{64}"\}\n$/);
  const { pubkey, secret } = JSON.parse(stdout);
  assert.equal(getPublicKey(hexToBytes(secret)), pubkey);
  const plain = await runOnce({ args: ["keygen"] });
  assert.match(plain.stdout, /^TINY_PRIVATE_KEY=[0-9a-f]{64}$/m);
});
