// `deno task demo`: the main job end to end on this machine. Starts the
// strict local relay on 127.0.0.1 with a fresh key, starts tinyagent as a
// host would (a child process on pipes, with the narrow permission flags),
// and prints a short transcript. `--bin PATH` drives a compiled binary instead.

import { parseArgs } from "node:util";
import { verifyEvent } from "nostr-tools/pure";
import { startStrictRelay, type StrictRelay } from "../tests/support/strict_relay/mod.ts";
import {
  assertKeyNeverLeaks,
  freePort,
  narrowFlags,
  newKey,
  type Output,
  type TestKey,
  Tinyagent,
  TOOLS_CHANGED_LINE,
  withFacade,
} from "../tests/support/tinyagent.ts";

const { values } = parseArgs({ args: Deno.args, options: { bin: { type: "string" } }, strict: true });

const colour = Deno.stdout.isTerminal();
const dim = (text: string) => colour ? `\x1b[2m${text}\x1b[0m` : text;
const bold = (text: string) => colour ? `\x1b[1m${text}\x1b[0m` : text;
const show = (arrow: string, text: string) =>
  console.log(`${arrow} ${text.length > 160 ? `${text.slice(0, 157)}...` : text}`);

const args = ["--allow-writes"];
let failed = false;
async function step(
  facade: Tinyagent,
  title: string,
  method: string,
  params: unknown,
  check: (answer: Record<string, unknown>) => string,
) {
  console.log(`\n${bold(title)}`);
  show(dim("host  →"), JSON.stringify({ method, params }));
  const answer = await facade.request(method, params);
  let summary: string;
  try {
    summary = check(answer);
  } catch (error) {
    failed = true;
    summary = `UNEXPECTED: ${(error as Error).message}: ${JSON.stringify(answer)}`;
  }
  show(dim("host  ←"), summary);
}

function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** A template the facade must refuse: the relay offering an agent grant to sign. */
function offerGrantTemplate(relay: StrictRelay, key: TestKey): void {
  relay.setTool(
    "request_grant",
    ({ args }) =>
      args.event ? { content: [{ type: "text", text: "unexpected" }], isError: true } : {
        content: [{ type: "text", text: "sign this grant" }],
        structuredContent: {
          unsigned: {
            kind: 30392,
            created_at: Math.floor(Date.now() / 1000),
            tags: [["d", key.pubkey]],
            content: "",
          },
        },
        isError: false,
      },
  );
}

/** The transcript, against a running session. */
async function transcript(facade: Tinyagent, relay: StrictRelay, key: TestKey): Promise<void> {
  offerGrantTemplate(relay, key);
  console.log(`relay  ${relay.url} (strict: NIP-98 verified, replays refused)`);
  console.log(`agent  ${key.npub} (a fresh key in TINY_PRIVATE_KEY)`);
  console.log(
    `run    ${
      values.bin ?? `deno run ${narrowFlags(relay.host).join(" ")} main.ts`
    } mcp --relay ${relay.url} ${args.join(" ")}`,
  );

  await step(facade, "1. initialize — answered by tinyagent itself", "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "demo-host", version: "1" },
  }, (answer) => {
    const result = answer.result as {
      protocolVersion: string;
      serverInfo: { name: string; version: string };
    };
    expect(result?.serverInfo?.name === "tinyagent", "no serverInfo");
    return `${result.serverInfo.name} ${result.serverInfo.version}, protocol ${result.protocolVersion}`;
  });

  await step(facade, "2. tools/list — the relay's table, curated", "tools/list", {}, (answer) => {
    const tools = (answer.result as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    expect(tools.at(-1) === "tiny_diagnose" && !tools.includes("publish_event"), "unexpected table");
    return `${tools.length} tools: ${tools.join(", ")}`;
  });

  await step(
    facade,
    "3. a read call",
    "tools/call",
    { name: "list_rooms", arguments: { limit: 5 } },
    (answer) => {
      const result = answer.result as { isError: boolean; content: { text: string }[] };
      expect(result.isError === false, "the read failed");
      return result.content[0].text;
    },
  );

  await step(
    facade,
    "4. a write call — the relay returns a template, tinyagent signs and resubmits it",
    "tools/call",
    {
      name: "post_message",
      arguments: { room: "general", content: "hello from the demo" },
    },
    (answer) => {
      const result = answer.result as { isError: boolean; structuredContent: { event_id: string } };
      expect(result.isError === false, "the write failed");
      const event = relay.published.at(-1)!;
      expect(verifyEvent(event) && event.pubkey === key.pubkey, "the published event does not verify");
      return `published kind ${event.kind} event ${result.structuredContent.event_id} (signature verified with nostr-tools)`;
    },
  );

  await step(facade, "5. a refused template — a grant (kind 30392) is never signed", "tools/call", {
    name: "request_grant",
    arguments: { reason: "demo", changes: { kinds: [1] } },
  }, (answer) => {
    const result = answer.result as { isError: boolean; content: { text: string }[] };
    expect(result.isError === true, "the template was not refused");
    return `isError: ${result.content[0].text}`;
  });

  await step(facade, "6. tiny_diagnose — one verdict on this key's access", "tools/call", {
    name: "tiny_diagnose",
    arguments: { rooms: ["general", "ops"], kinds: [9] },
  }, (answer) => (answer.result as { content: { text: string }[] }).content[0].text);
}

// The session ends with its own checks: exit 0, nothing but JSON-RPC on stdout, and the key in no
// output and no request the relay received.
const relay = await startStrictRelay();
let output: Output;
try {
  output = await withFacade({ relay, bin: values.bin, args }, transcript);
} catch (error) {
  console.log(`UNEXPECTED: ${(error as Error).message}`);
  Deno.exit(1);
} finally {
  await relay.close();
}
const { code, stderr } = output;
const posts = relay.requests.length;
console.log(`\n${dim(`relay received ${posts} signed POSTs; tinyagent exited ${code}; its stderr:`)}`);
console.log(dim(stderr.trim()));
failed = !await recovery() || failed;
failed = !await confirmation() || failed;

/**
 * 7. A host that started while the relay was down: it lists once and would never ask again, so the
 * table heals in the background and tinyagent tells the host (notifications/tools/list_changed).
 */
async function recovery(): Promise<boolean> {
  console.log(`\n${bold("7. the relay is down when the host starts; it comes back; the host is told")}`);
  const port = freePort();
  const key = newKey();
  const facade = new Tinyagent({
    bin: values.bin,
    flags: narrowFlags(`127.0.0.1:${port}`),
    args: ["mcp", "--relay", `http://127.0.0.1:${port}`],
    env: { TINY_PRIVATE_KEY: key.hex },
  });
  let late: StrictRelay | undefined;
  try {
    await facade.request("initialize", { protocolVersion: "2025-06-18", capabilities: {} });
    const names = async () =>
      ((await facade.request("tools/list", {})).result as { tools: { name: string }[] }).tools.map((t) =>
        t.name
      );
    show(dim("host  ←"), `tools/list with the relay down: ${(await names()).join(", ")}`);
    late = await startStrictRelay({ port });
    show(dim("relay  "), `up on port ${port}`);
    const started = Date.now();
    while (!facade.lines.includes(TOOLS_CHANGED_LINE) && Date.now() - started < 15_000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(facade.lines.includes(TOOLS_CHANGED_LINE), "no notifications/tools/list_changed");
    show(dim("host  ←"), `${TOOLS_CHANGED_LINE} (after ${Date.now() - started} ms, unasked)`);
    const tools = await names();
    expect(tools.length > 1, "the table did not come back");
    show(dim("host  ←"), `tools/list again: ${tools.length} tools`);
    const output = await facade.finish();
    assertKeyNeverLeaks(key, output, [late]);
    console.log(
      dim(output.stderr.trim().split("\n").filter((line) => /tools\/list|are back/.test(line)).join("\n")),
    );
    return output.code === 0;
  } catch (error) {
    console.log(`UNEXPECTED: ${(error as Error).message}`);
    return false;
  } finally {
    await facade.kill();
    await late?.close();
  }
}

/**
 * 8. With --confirm-writes the host asks its person before each write (MCP elicitation): one write
 * approved and published, one declined and never signed; each is in the audit log, which the
 * sandbox lets tinyagent append to and nothing else.
 */
async function confirmation(): Promise<boolean> {
  console.log(
    `\n${bold("8. --confirm-writes: the host asks its person before each write; one yes, one no")}`,
  );
  const relay = await startStrictRelay();
  const key = newKey();
  const dir = await Deno.makeTempDir({ prefix: "tinyagent-demo-" });
  const log = `${dir}/audit.jsonl`;
  const flags = ["--allow-writes", "--confirm-writes", "--max-writes", "5", "--audit-log", log];
  const facade = new Tinyagent({
    bin: values.bin,
    flags: [...narrowFlags(relay.host), `--allow-write=${log}`],
    args: ["mcp", "--relay", relay.url, ...flags],
    env: { TINY_PRIVATE_KEY: key.hex },
  });
  console.log(dim(`run    tinyagent mcp --relay ${relay.url} ${flags.join(" ")}`));
  try {
    // A host that can ask its person declares it (Claude Code and Hermes do).
    await facade.request("initialize", { protocolVersion: "2025-06-18", capabilities: { elicitation: {} } });
    for (const [content, action] of [["ship it", "accept"], ["and this too", "decline"]] as const) {
      const params = { name: "post_message", arguments: { room: "general", content } };
      show(dim("host  →"), JSON.stringify({ method: "tools/call", params }));
      const answer = facade.request("tools/call", params);
      const asked = await facade.hostRequest();
      const message = String((asked.params as { message: string }).message);
      expect(asked.method === "elicitation/create", "no question to the person");
      show(
        dim("host  ←"),
        `elicitation/create: ${message.split("\n").filter(Boolean)[1]}`, // what the write means
      );
      show(dim("person "), action === "accept" ? "Accept" : "Decline");
      await facade.respond(asked.id, action === "accept" ? { action, content: {} } : { action });
      const result = (await answer).result as { isError: boolean; content: { text: string }[] };
      if (action === "accept") {
        const event = relay.published.at(-1)!;
        expect(result.isError === false && verifyEvent(event), "the approved write was not published");
        show(dim("host  ←"), `published kind ${event.kind} event ${event.id} (signature verified)`);
      } else {
        expect(result.isError === true && relay.published.length === 1, "the declined write was signed");
        show(dim("host  ←"), `isError: ${result.content[0].text}`);
      }
    }
    const output = await facade.finish();
    assertKeyNeverLeaks(key, output, [relay]);
    const entries = (await Deno.readTextFile(log)).trimEnd().split("\n").map((line) => JSON.parse(line));
    expect(entries.length === 2 && verifyEvent(entries[0].event), "the audit log is not as expected");
    show(
      dim("log   "),
      `${log}: ${entries.map((entry) => `${entry.outcome}${entry.why ? ` (${entry.why})` : ""}`).join(", ")}`,
    );
    console.log(
      dim(output.stderr.trim().split("\n").filter((line) => /receipt:|held:/.test(line)).join("\n")),
    );
    return output.code === 0;
  } catch (error) {
    console.log(`UNEXPECTED: ${(error as Error).message}`);
    return false;
  } finally {
    await facade.kill();
    await relay.close();
    await Deno.remove(dir, { recursive: true });
  }
}

// A compiled binary must always sandbox itself; saying otherwise fails the release smoke test.
const unsandboxed = values.bin !== undefined && stderr.includes("the sandbox is not active");
if (unsandboxed) console.log("UNEXPECTED: the binary ran without its sandbox");
Deno.exit(failed || unsandboxed ? 1 : 0);
