// The helper's websocket side against a relay implementation nobody here wrote
// (tests/interop/nostr_relay_core.ts: @nostr-relay/core over Deno's own websocket server): its
// NIP-42 challenge answered and accepted, reads it serves only after AUTH, query and subscribe.

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey, type NostrEvent, verifyEvent } from "nostr-tools/pure";
import { RpcHelper } from "../support/rpc_helper.ts";
import { loaderEnv, newKey, ROOT } from "../support/tinyagent.ts";
import { within } from "../support/waits.ts";

/** The other relay, in a process of its own (its own deno.json: see the file's header). */
async function startOtherRelay() {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--allow-net=127.0.0.1",
      "--config",
      "tests/interop/deno.json",
      "--lock=tests/interop/deno.lock",
      "tests/interop/nostr_relay_core.ts",
    ],
    cwd: ROOT,
    env: loaderEnv(),
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const said: Record<string, unknown>[] = [];
  const reading = (async () => {
    let buffer = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      for (let at; (at = buffer.indexOf("\n")) !== -1; buffer = buffer.slice(at + 1)) {
        said.push(JSON.parse(buffer.slice(0, at)));
      }
    }
  })();
  const writer = child.stdin.getWriter();
  const waitFor = (what: string, test: (line: Record<string, unknown>) => boolean) =>
    within(
      60_000,
      what,
      (async () => {
        for (;;) {
          const found = said.find(test);
          if (found) return found;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })(),
    );
  const { port } = await waitFor("the other relay's port", (line) => "port" in line) as { port: number };
  return {
    url: `ws://127.0.0.1:${port}`,
    said,
    waitFor,
    publish: (event: NostrEvent) => writer.write(new TextEncoder().encode(`${JSON.stringify(event)}\n`)),
    close: async () => {
      await writer.close();
      await child.status;
      await reading;
    },
  };
}

Deno.test("rpc against @nostr-relay/core: AUTH, then query and subscribe", async (t) => {
  const relay = await startOtherRelay();
  const key = newKey();
  const someone = generateSecretKey();
  const now = Math.floor(Date.now() / 1000);
  const stored = finalizeEvent(
    { kind: 1, created_at: now - 60, tags: [["t", "interop"]], content: "stored" },
    someone,
  );
  await relay.publish(stored);
  const helper = await RpcHelper.start({ relayUrl: relay.url, key });
  try {
    await t.step(
      "query: its challenge answered and accepted, the REQ sent again, the stored event",
      async () => {
        const answer = await helper.call("query", { filter: { "#t": ["interop"] } });
        assert.deepEqual(
          (answer.result as NostrEvent[]).map((event) => event.id),
          [stored.id],
          JSON.stringify(answer),
        );
        assert.ok(verifyEvent({ ...(answer.result as NostrEvent[])[0] }));
        await relay.waitFor("the relay accepted the AUTH", (line) => line.authenticated === key.pubkey);
      },
    );
    await t.step("subscribe: connected, the history, then a live event", async () => {
      await helper.call("subscribe", { subscription: "interop", filter: { kinds: [1], "#t": ["interop"] } });
      await helper.waitFor("connected", (line) => line.event === "connected");
      await helper.waitFor("the stored event", (line) => (line.data as NostrEvent)?.id === stored.id);
      const live = finalizeEvent(
        { kind: 1, created_at: now, tags: [["t", "interop"]], content: "live" },
        someone,
      );
      await relay.publish(live);
      await helper.waitFor("the live event", (line) => (line.data as NostrEvent)?.id === live.id);
    });
    await t.step("publish over HTTP has no place on this relay, and says so", async () => {
      const answer = await helper.call("publish", { event: { kind: 1, content: "x", tags: [] } });
      assert.match((answer.error as { message: string }).message, /^relay HTTP 400/);
    });
    assert.equal((await helper.end()).code, 0, helper.stderr);
  } finally {
    await helper.close();
    await relay.close();
  }
});
