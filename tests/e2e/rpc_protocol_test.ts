// `tinyagent rpc`'s line protocol through a real process on pipes, started as the Hermes plugin
// starts it (rpc-facts.md 1, 2): the ids echoed as written, the Go peer's member order, id-less
// errors for lines that are not requests, unknown methods, the line bound, the end of input (every
// call answered, every stream ended, exit 0), SIGTERM, and the startup refusals.

import assert from "node:assert/strict";
import { startStrictRelay } from "../support/strict_relay/mod.ts";
import { assertHelperLine, helperHome, LAUNCHER, pluginEnv, RpcHelper } from "../support/rpc_helper.ts";
import { newKey } from "../support/tinyagent.ts";
import { within } from "../support/waits.ts";

Deno.test("rpc: requests and answers as the plugin writes and reads them", async (t) => {
  const relay = await startStrictRelay();
  const key = newKey();
  const helper = await RpcHelper.start({ relayUrl: relay.url, key });
  try {
    await t.step("identity: the key's public key, and nothing sent to the relay", async () => {
      assert.deepEqual(await helper.call("identity"), { id: 1, result: { pubkey: key.pubkey } });
      assert.equal(relay.requests.length, 0);
    });
    await t.step("ids come back byte for byte, whatever their JSON", async () => {
      for (const id of ['"a"', "1.0", "12345678901234567890", "null", '{"n":[1, 2]}', "-0"]) {
        await helper.writeLine(`{"id":${id},"method":"identity"}`);
        await helper.waitFor(
          `the answer to ${id}`,
          () => helper.raw.some((raw) => raw.startsWith(`{"id":${id},`)),
        );
      }
      await helper.writeLine('{"method":"identity"}');
      await helper.waitFor("an answer without id", (line) => !("id" in line) && "result" in line);
    });
    await t.step("lines that are not requests: an error without id, and serving goes on", async () => {
      for (const bad of ["not json", "", "[1]", '"text"']) {
        const before = helper.lines.length;
        await helper.writeLine(bad);
        const line = await helper.waitFor(
          `a refusal of ${JSON.stringify(bad)}`,
          (l) => helper.lines.indexOf(l) >= before,
        );
        assert.deepEqual(Object.keys(line), ["error"]);
        assert.match((line.error as { message: string }).message, /^invalid request: /);
      }
      const answer = await helper.call("nope");
      assert.deepEqual(answer.error, { message: 'unknown method "nope"' });
      const params = await helper.call("identity", [1, 2] as unknown as Record<string, unknown>);
      assert.deepEqual(params.error, { message: "invalid request: params must be a JSON object" });
      assert.deepEqual((await helper.call("identity")).result, { pubkey: key.pubkey });
    });
    await t.step("a line that names the key is refused, its id and text never written back", async () => {
      await helper.writeLine(`{"id":"${key.hex}","method":"identity"}`);
      const line = await helper.waitFor("the refusal", (l) => /private key/.test(JSON.stringify(l)));
      assert.deepEqual(Object.keys(line), ["error"]);
    });
    await t.step("at end of input: exit 0", async () => {
      const { code } = await helper.end();
      assert.equal(code, 0);
    });
  } finally {
    await helper.close();
    await relay.close();
  }
});

Deno.test("rpc: at end of input every call in flight is answered and every stream ends", async () => {
  const relay = await startStrictRelay();
  relay.delay(300); // /events answers late: the publish is still in flight at EOF
  const key = newKey();
  const helper = await RpcHelper.start({ relayUrl: relay.url, key });
  try {
    await helper.call("subscribe", { subscription: "room", filter: { kinds: [9] } });
    await helper.waitFor("connected", (line) => line.event === "connected" && line.subscription === "room");
    const id = await helper.send("publish", {
      event: { kind: 9, content: "last words", tags: [["h", "general"]] },
    });
    const { code } = await helper.end();
    assert.equal(code, 0);
    const answer = helper.lines.find((line) => line.id === id)!;
    assert.equal((answer.result as { content: string }).content, "last words");
    const last = helper.stream("room").at(-1)!;
    assert.equal(last.event, "error");
    assert.match((last.data as { message: string }).message, /input ended/);
    assert.ok(helper.lines.indexOf(last) > helper.lines.indexOf(answer), "the streams end after the calls");
  } finally {
    await helper.close();
    await relay.close();
  }
});

Deno.test("rpc: SIGTERM ends it at once, with calls and streams in flight", async () => {
  const relay = await startStrictRelay();
  relay.delay(60_000);
  const helper = await RpcHelper.start({ relayUrl: relay.url, key: newKey() });
  try {
    await helper.call("subscribe", { subscription: "s", filter: {} });
    await helper.send("publish", { event: { kind: 9, content: "x", tags: [] } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    helper.child.kill("SIGTERM");
    const status = await within(5000, "the exit after SIGTERM", helper.child.status);
    assert.equal(status.success, true, `exit ${status.code}`);
  } finally {
    await helper.close();
    await relay.close();
  }
});

Deno.test("rpc: a line up to 48 MiB is read; a longer one is refused with its id, and serving goes on", async () => {
  const relay = await startStrictRelay();
  const helper = await RpcHelper.start({ relayUrl: relay.url, key: newKey() });
  try {
    const big = "x".repeat(48 * 1024 * 1024 - 100);
    await helper.writeLine(`{"id":1,"method":"identity","params":{"pad":"${big}"}}`);
    assert.ok("result" in await helper.answer(1, 60_000), "a line just under 48 MiB is a request");
    await helper.writeLine(`{"id":2,"method":"identity","params":{"pad":"${big}${"y".repeat(200)}"}}`);
    const refused = await helper.answer(2, 60_000);
    assert.match((refused.error as { message: string }).message, /over the 50331648 byte line limit/);
    assert.ok("result" in await helper.call("identity"));
    assert.equal((await helper.end()).code, 0);
  } finally {
    await helper.close();
    await relay.close();
  }
});

Deno.test("rpc: startup refusals are one line on stderr, before any input is read", async (t) => {
  const home = await helperHome();
  const key = newKey();
  const run = async (args: string[], env = pluginEnv(home, key)) => {
    const output = await new Deno.Command(LAUNCHER, {
      args,
      clearEnv: true,
      env: { ...env, DENO_NO_UPDATE_CHECK: "1" },
      stdin: "null",
    }).output();
    return {
      code: output.code,
      stdout: new TextDecoder().decode(output.stdout),
      stderr: new TextDecoder().decode(output.stderr),
    };
  };
  try {
    await t.step("no --relay", async () => {
      const { code, stdout, stderr } = await run(["rpc"]);
      assert.equal(code, 1);
      assert.equal(stdout, "");
      assert.match(stderr, /--relay URL is required/);
    });
    await t.step("the key variable unset", async () => {
      const { TINY_PRIVATE_KEY: _, ...env } = pluginEnv(home, key);
      const { code, stderr } = await run(["rpc", "--relay", "http://127.0.0.1:9"], env);
      assert.equal(code, 1);
      assert.match(stderr, /TINY_PRIVATE_KEY is not set/);
    });
    await t.step("--confirm-writes: nobody to ask, said why", async () => {
      const { code, stderr } = await run(["rpc", "--relay", "http://127.0.0.1:9", "--confirm-writes"]);
      assert.equal(code, 1);
      assert.match(stderr, /--confirm-writes cannot work with rpc/);
    });
    await t.step("--help lists the methods", async () => {
      const { code, stdout } = await run(["rpc", "--help"]);
      assert.equal(code, 0);
      for (
        const method of [
          "identity",
          "publish",
          "query",
          "subscribe",
          "unsubscribe",
          "request",
          "upload",
          "download",
          "diagnose",
        ]
      ) {
        assert.match(stdout, new RegExp(`\\n  ${method}\\b`), method);
      }
    });
    await t.step("a relay URL that is none", async () => {
      const { code, stderr } = await run(["rpc", "--relay", "ftp://relay.example"]);
      assert.equal(code, 1);
      assert.match(stderr, /must be an http or https URL \(or ws or wss/);
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("rpc: every line written is one message of the protocol, escaped as the Go peer escapes", () => {
  assert.throws(() => assertHelperLine('{"result":1,"id":2}', "x"), /members/);
  assert.throws(() => assertHelperLine('{"id":1,"result":"<b>"}', "x"), /escaped/);
  assertHelperLine('{"id":1,"result":"\\u003cb\\u003e"}', "x");
});
