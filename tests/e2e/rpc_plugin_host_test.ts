// The Hermes platform plugin's side of `rpc`, played by a test host written from rpc-facts.md
// section 7 (tests/support/python_plugin_host.py: asyncio, the plugin's filtered environment,
// integer ids, 30 s timeouts, waiting for `connected`). Against the strict relay: it connects,
// subscribes, receives a room message and a 43001 request, replies, answers the request with 43002
// and 43004, uploads and downloads an attachment. Runs where a python3 is; says so where none is.

import assert from "node:assert/strict";
import {
  finalizeEvent,
  generateSecretKey,
  getPublicKey,
  type NostrEvent,
  verifyEvent,
} from "nostr-tools/pure";
import { startStrictRelay } from "../support/strict_relay/mod.ts";
import { helperHome, LAUNCHER, pluginEnv } from "../support/rpc_helper.ts";
import { assertNoSecret, newKey, ROOT } from "../support/tinyagent.ts";
import { within } from "../support/waits.ts";

function python(): string | undefined {
  try {
    return new Deno.Command("python3", { args: ["--version"], stdout: "null", stderr: "null" }).outputSync()
        .success
      ? "python3"
      : undefined;
  } catch {
    return undefined;
  }
}

const PYTHON = python();
if (!PYTHON) console.log("rpc_plugin_host_test: no python3 here, so the plugin-style host does not run");

const tagged = (event: NostrEvent, ...tag: string[]) =>
  event.tags.some((t) => tag.every((value, i) => t[i] === value));

Deno.test({
  name: "a plugin-style Python host takes part in a room through tinyagent rpc",
  ignore: !PYTHON,
  async fn() {
    const relay = await startStrictRelay();
    const home = await helperHome();
    const agent = newKey();
    const person = generateSecretKey();
    const personKey = getPublicKey(person);
    const child = new Deno.Command(PYTHON!, {
      args: [`${ROOT}tests/support/python_plugin_host.py`, LAUNCHER, relay.url, "general"],
      clearEnv: true,
      env: { ...pluginEnv(home, agent), PLUGIN_PEER: personKey },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const steps: Record<string, unknown>[] = [];
    const stdout = (async () => {
      let buffer = "";
      for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
        buffer += chunk;
        for (let at; (at = buffer.indexOf("\n")) !== -1; buffer = buffer.slice(at + 1)) {
          steps.push(JSON.parse(buffer.slice(0, at)));
        }
      }
    })();
    const stderr = new Response(child.stderr).text();
    try {
      await within(
        30_000,
        "the host's ready line",
        (async () => {
          while (!steps.some((step) => "ready" in step || "error" in step)) {
            await new Promise((r) => setTimeout(r, 20));
          }
        })(),
      );
      assert.equal(steps.find((step) => "ready" in step)?.ready, agent.pubkey, JSON.stringify(steps));
      const now = Math.floor(Date.now() / 1000);
      const mention = finalizeEvent({
        kind: 9,
        created_at: now,
        tags: [["h", "general"], ["p", agent.pubkey]],
        content: `@${agent.pubkey} hello`,
      }, person);
      const job = finalizeEvent({
        kind: 43001,
        created_at: now,
        tags: [["h", "general"], ["p", agent.pubkey], ["subject", "write a report"]],
        content: "a short one",
      }, person);
      relay.inject(mention);
      relay.inject(job);
      const status = await within(60_000, "the host's end", child.status);
      await stdout;
      assert.equal(status.code, 0, `${JSON.stringify(steps)}\n${await stderr}`);
      const done = steps.find((step) => "done" in step)!;
      assert.equal(done.exit, 0, "the helper ends at SIGTERM with status 0");

      const mine = relay.events.filter((event) => event.pubkey === agent.pubkey);
      for (const event of mine) assert.ok(verifyEvent({ ...event }), `event ${event.id} verifies`);
      const reply = mine.find((event) => event.kind === 9)!;
      assert.ok(
        tagged(reply, "e", mention.id, "", "reply") && tagged(reply, "p", personKey) &&
          tagged(reply, "h", "general"),
      );
      const accepted = mine.find((event) => event.kind === 43002)!;
      assert.ok(tagged(accepted, "e", job.id) && tagged(accepted, "p", personKey));
      const result = mine.find((event) => event.kind === 43004)!;
      assert.ok(tagged(result, "e", job.id) && tagged(result, "e", reply.id));
      assert.equal(result.id, done.done);
      assert.equal(relay.attachments.size, 1);
      assertNoSecret(agent, JSON.stringify(steps), "the host's output");
    } finally {
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
      await child.status;
      await stderr;
      await relay.close();
      await Deno.remove(home, { recursive: true });
    }
  },
});
