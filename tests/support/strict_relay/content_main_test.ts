// `deno task relay --seed`, started as a person starts it: its read tools answer from the demo
// content, which reads as the agent's own (its repository, the long tasks that ask it, its files).

import assert from "node:assert/strict";
import { command } from "../tinyagent.ts";
import { within } from "../waits.ts";
import { parseRelayArgs } from "./main.ts";
import type { StrictRelay } from "./mod.ts";
import { AGENT, read } from "./content_test_kit.ts";

const LAST_LINE = "# Ctrl-C stops the relay.";

Deno.test("deno task relay --seed: parsed as a flag of its own", () => {
  assert.deepEqual(parseRelayArgs(["--seed", "--port", "0"]), {
    port: 0,
    prefix: "",
    seed: true,
    help: false,
  });
  assert.equal(parseRelayArgs([]).seed, undefined, "absent unless asked for");
});

Deno.test("deno task relay --seed: the reads answer from the demo content", async () => {
  const args = ["task", "relay", "--port", "0", "--seed", "--pubkey", AGENT.pk];
  const child = command({ bin: Deno.execPath(), args, env: { NO_COLOR: "1" } }).spawn();
  await child.stdin.close();
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let text = "";
    const banner = async () => {
      while (!text.includes(LAST_LINE)) {
        const { done, value } = await reader.read();
        if (done) throw new Error(`the relay ended before its banner:\n${text}\n${await stderr}`);
        text += value;
      }
    };
    await within(60_000, "the relay's banner", banner());
    assert.match(text, /^# seeded rooms room-001 to room-012, repository demo/m);
    const url = /^# relay +(\S+)$/m.exec(text)![1];
    const relay = { mcpUrl: `${url}/mcp` } as StrictRelay;
    const rooms = await read(relay, "list_rooms");
    assert.deepEqual(rooms.items.length, 13, "the twelve demo rooms and general");
    const issues = await read(relay, "list_issues", { owner: AGENT.pk, repo: "demo" });
    assert.equal(issues.items.length, 20);
    const jobs = await read(relay, "list_jobs");
    assert.ok(jobs.items.every((j: { assignees: string[] }) => j.assignees.includes(AGENT.pk)));
    const files = await read(relay, "list_files");
    assert.deepEqual(files.items.map((f: { uploader: string }) => f.uploader), [AGENT.pk, AGENT.pk]);
    assert.ok((await read(relay, "list_wiki")).items.length > 0);
  } finally {
    try {
      child.kill("SIGTERM");
    } catch {
      // already ended
    }
    while (!(await reader.read()).done) {
      // read to the end so the pipe closes
    }
    const status = await child.status;
    assert.equal(status.code, 0, await stderr);
  }
});
