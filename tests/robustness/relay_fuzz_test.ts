// The relay side fuzzed: a strict relay whose every answer is generated —
// random tool tables, random results and content blocks, random templates
// for the facade to sign or refuse, JSON-RPC errors, HTTP faults — against
// one tinyagent process with writes allowed, as a host calling tools
// concurrently. What the host receives must stay valid whatever the relay
// sends: every stdout line checked with the official SDK's schemas, exactly
// one answer per request id, no crash, and the key nowhere. The seed is
// printed; set TINYAGENT_RELAY_FUZZ_SEED to replay a run.

import assert from "node:assert/strict";
import { type Fault, startStrictRelay, type ToolDef, type ToolResult } from "../support/strict_relay/mod.ts";
import { parseAnswerLine, type RpcMessage, withFacade } from "../support/tinyagent.ts";
import { Rng, seedFrom } from "../support/robustness_kit.ts";
import { CONTRACT_KINDS, CONTRACT_READ, CONTRACT_WRITE, TINY_DIAGNOSE } from "../support/contract.ts";

const SEED = seedFrom("TINYAGENT_RELAY_FUZZ_SEED");
/** Host requests sent at least, and relay answers generated at least. */
const CALLS = 2_000;
const RELAY_ANSWERS = 2_000;
const TOOLS = [...CONTRACT_READ, ...CONTRACT_WRITE];
const PNG = "iVBORw0KGgo=";

class RelayAnswers {
  #rng: Rng;
  /** Relay answers generated, of every kind. */
  count = 0;

  constructor(seed: number) {
    this.#rng = new Rng(seed);
  }

  #any(depth = 0): unknown {
    const rng = this.#rng;
    switch (rng.int(depth > 2 ? 5 : 8)) {
      case 0:
        return null;
      case 1:
        return rng.chance(0.5);
      case 2:
        return rng.pick([0, -1, 1.5, 2 ** 53 + 1, 1e308, -0]);
      case 3:
        return rng.pick(["", "x", "é中🎉", "\u0000\ud800", "restricted: no", "auth-required: sign in"]);
      case 4:
        return "s".repeat(rng.pick([10, 1000, 70_000]));
      case 5:
        return Array.from({ length: rng.int(4) }, () => this.#any(depth + 1));
      default:
        return Object.fromEntries(
          Array.from({ length: rng.int(4) }, (_, i) => [`k${i}`, this.#any(depth + 1)]),
        );
    }
  }

  #block(): unknown {
    const rng = this.#rng;
    return rng.weighted<() => unknown>([
      [() => ({ type: "text", text: rng.pick(["ok", "restricted: private", "t".repeat(70_000), "é"]) }), 6],
      [() => ({ type: "text", text: this.#any() }), 1],
      [() => ({ type: "text" }), 1],
      [() => ({ type: "Text", text: "capital" }), 1],
      [
        () => ({
          type: "image",
          data: rng.pick([PNG, "***", 5]),
          mimeType: rng.pick(["image/png", undefined]),
        }),
        1,
      ],
      [
        () => ({
          type: "audio",
          data: PNG,
          mimeType: "audio/wav",
          annotations: { priority: rng.pick([0.5, 9]) },
        }),
        1,
      ],
      [
        () => ({
          type: "resource",
          resource: rng.pick([{ uri: "file:///a", text: "r".repeat(100_000) }, { uri: "x", blob: PNG }, {
            text: "no uri",
          }, "nope"]),
        }),
        1,
      ],
      [
        () => ({
          type: "resource_link",
          uri: "https://relay.example.test/f",
          name: rng.pick(["f", undefined]),
        }),
        1,
      ],
      [
        () => ({
          type: rng.pick(["video", "", "__proto__", "constructor"]),
          text: rng.pick(["words", undefined]),
        }),
        1,
      ],
      [() => this.#any(), 1],
    ])();
  }

  #template(tool: string): Record<string, unknown> {
    const rng = this.#rng;
    const kinds = CONTRACT_KINDS[tool] ?? [];
    const kind = rng.chance(0.6) && kinds.length > 0
      ? rng.pick(kinds)
      : rng.pick([1, 7, 9, 1111, 30392, 27235, 22242, 24242, 65535, -1, 1.5, "9", 2 ** 53]);
    const unsigned: Record<string, unknown> = {
      kind,
      tags: rng.pick([[["h", "general"]], [], [["p", "ab".repeat(32)], ["e", "x", ""]], [["h", 1]], "tags", [
        [],
      ]]),
      content: rng.pick(["hello", "", "é🎉", 5]),
    };
    if (rng.chance(0.7)) unsigned.created_at = rng.pick([1_700_000_000, 0, -5, 1.5, "now"]);
    return { unsigned, next: "sign this event and call the tool again with event" };
  }

  /** A tools/call answer: a result of any shape, or a fault. */
  call(tool: string, resubmitted: boolean): ToolResult | Fault {
    this.count++;
    const rng = this.#rng;
    return rng.weighted<() => ToolResult | Fault>([
      [
        () => ({
          content: [{ type: "text", text: `${tool} done` }],
          structuredContent: { n: rng.int(9) },
          isError: false,
        }),
        6,
      ],
      [() => ({ content: Array.from({ length: rng.int(5) }, () => this.#block()) }), 6],
      [
        () => ({ content: [{ type: "text", text: "sign" }], structuredContent: this.#template(tool) }),
        resubmitted ? 1 : 6,
      ],
      [
        () => ({ content: rng.pick([[], "x", null]), structuredContent: this.#any(), isError: this.#any() }),
        3,
      ],
      [
        () => ({
          content: [{ type: "text", text: "big" }],
          structuredContent: { blob: "b".repeat(300_000) },
        }),
        1,
      ],
      [
        () => ({
          content: [{ type: "text", text: "restricted: not in your grant" }],
          structuredContent: { message: "auth-required: x" },
          isError: true,
        }),
        2,
      ],
      [
        () => ({
          jsonrpcError: {
            code: rng.pick([-32000, -32602, -32603, 7]),
            message: rng.pick(["busy", "Unknown tool: x", "m".repeat(100_000)]),
          },
        }),
        2,
      ],
      [
        () => ({
          status: rng.pick([401, 403, 404, 429, 500, 502, 503]),
          body: rng.pick(["", "{}", "<html>", JSON.stringify({ error: "restricted: no" })]),
        }),
        2,
      ],
      [
        () => ({
          status: 200,
          body: rng.pick(["{not json", "[]", '{"jsonrpc":"2.0","id":999,"result":{}}']),
        }),
        1,
      ],
      [() => ({ status: 200, body: "{}", contentType: rng.pick(["text/html", "application/x-json"]) }), 1],
      [() => ({ drop: true }), 1],
      [() => ({ resetMidBody: true }), 1],
    ])();
  }

  /** A tool table with some entries broken in every way a relay could break them. */
  table(): ToolDef[] {
    this.count++;
    const rng = this.#rng;
    const names = [...TOOLS, "publish_event", TINY_DIAGNOSE, "set_policy"].filter(() => rng.chance(0.9));
    return names.map((name) => {
      const entry: Record<string, unknown> = {
        name: rng.chance(0.97) ? name : rng.pick([5, null, ""]),
        description: rng.chance(0.85) ? `the relay's ${name}` : this.#any(),
        inputSchema: rng.chance(0.85)
          ? { type: "object", properties: { id: { type: "string" } } }
          : this.#any(),
      };
      if (rng.chance(0.3)) entry.title = rng.chance(0.5) ? name : this.#any();
      if (rng.chance(0.3)) entry.annotations = rng.chance(0.5) ? { readOnlyHint: true } : this.#any();
      if (rng.chance(0.3)) entry.outputSchema = { type: "object", required: ["never"] };
      return entry as unknown as ToolDef;
    });
  }
}

Deno.test(`relay fuzz: ${RELAY_ANSWERS} generated relay answers to a host's calls (seed ${SEED})`, async (t) => {
  const at = `[seed ${SEED}] `;
  const answers = new RelayAnswers(SEED);
  const relay = await startStrictRelay({ keepAlive: true });
  relay.setTable(answers.table());
  for (const tool of TOOLS) {
    relay.setTool(tool, (ctx) => {
      const answer = answers.call(tool, ctx.args.event !== undefined);
      // An unknown-tool answer makes the facade fetch the table again: give it a new one.
      const error = "jsonrpcError" in answer ? answer.jsonrpcError as { message: string } : undefined;
      if (error && /^Unknown tool/.test(error.message)) {
        relay.setTable(answers.table());
      }
      return answer;
    });
  }
  const rng = new Rng(SEED ^ 0x5eed);
  const sent = new Map<string, string>();
  try {
    const output = await withFacade({ relay, args: ["--allow-writes"], context: at }, async (facade) => {
      const pending: Promise<unknown>[] = [];
      // Calls refused before the relay (a tool the random table lacks) generate no relay answer: go on
      // until the relay has answered RELAY_ANSWERS times.
      for (let i = 0; i < CALLS || answers.count < RELAY_ANSWERS; i++) {
        const id = `c${i}`;
        const list = rng.chance(0.05);
        sent.set(JSON.stringify(id), list ? "tools/list" : "tools/call");
        pending.push(
          list
            ? facade.request("tools/list", {}, id)
            : facade.request("tools/call", { name: rng.pick(TOOLS), arguments: { id: `x${i}` } }, id),
        );
        if (pending.length >= 50) await Promise.all(pending.splice(0));
      }
      await Promise.all(pending);
    });
    console.log(`relay fuzz: ${answers.count} relay answers generated, ${relay.requests.length} requests`);

    await t.step("at least 2,000 relay answers were generated", () => {
      assert.ok(answers.count >= RELAY_ANSWERS, `${at}${answers.count}`);
    });
    const parsed: RpcMessage[] = [];
    await t.step("every stdout line is valid for the SDK, for the method it answers", () => {
      for (const [i, line] of output.lines.entries()) {
        const id = JSON.stringify((JSON.parse(line) as { id: unknown }).id);
        parsed.push(parseAnswerLine(line, `${at}stdout line ${i}: `, sent.get(id)));
      }
    });
    await t.step("exactly one answer per request id", () => {
      const ids = parsed.map((answer) => JSON.stringify(answer.id));
      assert.equal(new Set(ids).size, ids.length, `${at}an id answered twice`);
      assert.deepEqual([...sent.keys()].filter((id) => !ids.includes(id)), [], `${at}ids never answered`);
      assert.equal(ids.length, sent.size);
    });
    await t.step("no crash: nothing failed inside the facade", () => {
      assert.ok(!/internal error|Uncaught/i.test(output.stderr), `${at}${output.stderr.slice(-2000)}`);
    });
    await t.step("every token reached the relay at most once", () => {
      const tokens = relay.requests.map((request) => request.auth?.id).filter(Boolean);
      assert.equal(new Set(tokens).size, tokens.length, `${at}a token reached the relay twice`);
    });
  } finally {
    await relay.close();
  }
});
