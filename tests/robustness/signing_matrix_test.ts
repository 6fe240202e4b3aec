// The signing boundary as a matrix: every curated tool × every kind of the
// contract's table and a few that must never be signed (0, 1, the grant kind,
// the authorization kinds, 65535), with and without --allow-writes, plus malformed
// templates. The relay answers each first call with a template of the cell's
// kind and a second call with a publish result; a signature must exist exactly
// where facade.md "Sign and resubmit" allows one.
//
// The tables come from the contract fixture (tests/support/contract.ts), independently of lib/.

import assert from "node:assert/strict";
import { type NostrEvent, verifyEvent } from "nostr-tools/pure";
import {
  type CallContext,
  startStrictRelay,
  type StrictRelay,
  type ToolResult,
} from "../support/strict_relay/mod.ts";
import { type TestKey, type Tinyagent, withFacade } from "../support/tinyagent.ts";
import {
  AUTHORIZATION_KINDS,
  authorizationRefusalText as authorizationText,
  CONTRACT_KINDS,
  CONTRACT_READ,
  CONTRACT_WRITE,
  GRANT_KIND,
  INVALID_PARAMS,
  TINY_DIAGNOSE,
  unexpectedKindText as unexpectedText,
  UNKNOWN_TOOL,
} from "../support/contract.ts";

const KINDS = [
  ...new Set([...Object.values(CONTRACT_KINDS).flat(), 0, 1, GRANT_KIND, ...AUTHORIZATION_KINDS, 65535]),
];

type Result = {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/** One cell: a tool, and the result the relay gives its first call. */
interface Cell {
  id: string;
  tool: string;
  /** The relay's first answer. */
  first: ToolResult;
  /** The template inside it, when it is one (for the checks on the signed event). */
  unsigned?: Record<string, unknown>;
  kind?: number;
  /** The relay's answer to the resubmission, when not the usual publish result. */
  second?: ToolResult;
}

/** Whether the contract lets the facade sign a template of `kind` returned by `tool`. */
function maySign(tool: string, kind: number, allowWrites: boolean): boolean {
  return allowWrites && Object.hasOwn(CONTRACT_KINDS, tool) && CONTRACT_KINDS[tool].includes(kind) &&
    !AUTHORIZATION_KINDS.includes(kind);
}

/** A distinct, awkward but well-formed template per cell: tags with relays, markers, unicode. */
function template(tool: string, kind: number, n: number): Record<string, unknown> {
  const unsigned: Record<string, unknown> = {
    kind,
    tags: [
      ["h", `room-${n}`],
      ["p", "ab".repeat(32), "wss://relay.example.test", "mention"],
      ["subject", `✓ ${tool} «${kind}» 🎉`],
      ["t", ""],
    ],
    content: `cell ${n}: ${tool} kind ${kind}\n  "quoted" \\ é\u2028`,
  };
  // Every fourth template has no created_at: the one field the facade fills.
  if (n % 4 !== 0) unsigned.created_at = 1_700_000_000 + n;
  return unsigned;
}

function templateResult(unsigned: unknown, extra: Record<string, unknown> = {}): ToolResult {
  return {
    content: [{ type: "text", text: `${JSON.stringify(unsigned)}\nSign this event and call again with it.` }],
    structuredContent: { unsigned, next: "Sign this event and call the tool again with it as event." },
    isError: false,
    ...extra,
  };
}

/** The relay side of every cell: a template on the first call, a publish result on the second. */
function installHandlers(relay: StrictRelay, tools: string[], cells: Map<string, Cell>): void {
  const handler = ({ args }: CallContext): ToolResult => {
    const cell = cells.get(String(args.cell));
    if (!cell) {
      return { content: [{ type: "text", text: `no cell ${args.cell}` }], isError: true };
    }
    if (args.event !== undefined) {
      if (cell.second) return structuredClone(cell.second);
      const event = args.event as NostrEvent;
      return {
        content: [{ type: "text", text: `published ${event.id}` }],
        structuredContent: { event_id: event.id, accepted: true, message: "" },
        isError: false,
      };
    }
    return structuredClone(cell.first);
  };
  for (const tool of tools) relay.setTool(tool, handler);
}

/** The relay's tools/call requests for one cell, in order. */
function callsFor(relay: StrictRelay): Map<string, Record<string, unknown>[]> {
  const byCell = new Map<string, Record<string, unknown>[]>();
  for (const request of relay.requests) {
    const body = request.json as { method?: string; params?: { arguments?: Record<string, unknown> } };
    if (body?.method !== "tools/call") continue;
    const args = body.params?.arguments ?? {};
    const list = byCell.get(String(args.cell)) ?? [];
    list.push(args);
    byCell.set(String(args.cell), list);
  }
  return byCell;
}

/** Sends every cell's call at once and collects the answers by cell. */
async function callAll(
  facade: Tinyagent,
  cells: Cell[],
): Promise<Map<string, { result?: Result; error?: { code: number; message: string } }>> {
  const answers = await Promise.all(
    cells.map((cell) =>
      facade.request(
        "tools/call",
        { name: cell.tool, arguments: { cell: cell.id, note: "kept as sent" } },
        cell.id,
      )
    ),
  );
  return new Map(
    answers.map((answer, i) => [
      cells[i].id,
      answer as { result?: Result; error?: { code: number; message: string } },
    ]),
  );
}

function checkSigned(
  cell: Cell,
  answer: { result?: Result; error?: unknown },
  calls: Record<string, unknown>[],
  key: TestKey,
): NostrEvent {
  const where = `${cell.tool} kind ${cell.kind} (${cell.id})`;
  assert.ok(answer.result, `${where}: ${JSON.stringify(answer.error)}`);
  assert.equal(calls.length, 2, `${where}: the template call, then the resubmission`);
  const [first, second] = calls;
  assert.equal(first.event, undefined, `${where}: the first call carries no event`);
  const event = second.event as NostrEvent;
  assert.ok(event && typeof event === "object", `${where}: the second call carries the event`);
  assert.deepEqual(
    { ...second, event: undefined },
    { ...first, event: undefined },
    `${where}: same arguments`,
  );
  assert.ok(verifyEvent(structuredClone(event)), `${where}: nostr-tools verifies the signature`);
  assert.equal(event.pubkey, key.pubkey, `${where}: signed by the agent`);
  const unsigned = cell.unsigned!;
  assert.equal(event.kind, unsigned.kind, where);
  assert.deepEqual(event.tags, unsigned.tags, where);
  assert.equal(event.content, unsigned.content, where);
  if (unsigned.created_at !== undefined) assert.equal(event.created_at, unsigned.created_at, where);
  else {assert.ok(
      Math.abs(event.created_at - Date.now() / 1000) < 60,
      `${where}: a missing created_at is now`,
    );}
  assert.deepEqual(
    Object.keys(event).sort(),
    ["content", "created_at", "id", "kind", "pubkey", "sig", "tags"],
    `${where}: an event, nothing else`,
  );
  const result = answer.result;
  assert.equal(result.isError, false, where);
  assert.deepEqual(result.structuredContent, { event_id: event.id, accepted: true, message: "" }, where);
  assert.ok(!JSON.stringify(result).includes('"unsigned"'), `${where}: the host never sees the template`);
  return event;
}

function checkRefused(
  cell: Cell,
  answer: { result?: Result; error?: unknown },
  calls: Record<string, unknown>[],
): void {
  const where = `${cell.tool} kind ${cell.kind} (${cell.id})`;
  assert.ok(answer.result, `${where}: ${JSON.stringify(answer.error)}`);
  assert.equal(calls.length, 1, `${where}: the relay is not called a second time`);
  assert.equal(calls[0].event, undefined, where);
  const result = answer.result;
  assert.equal(result.isError, true, where);
  assert.equal(result.content.length, 1, where);
  const kind = cell.kind!;
  if (AUTHORIZATION_KINDS.includes(kind)) {
    assert.equal(result.content[0].text, authorizationText(kind, cell.tool), where);
    assert.equal(result.structuredContent, undefined, `${where}: only the refusal text`);
  } else {
    assert.equal(result.content[0].text, unexpectedText(kind, cell.tool), where);
    assert.deepEqual(result.structuredContent, cell.first.structuredContent, `${where}: the relay's result`);
  }
}

/** The result reached the host as the relay gave it, and nothing was signed or sent again. */
function checkPassedThrough(
  cell: Cell,
  answer: { result?: Result; error?: unknown },
  calls: Record<string, unknown>[],
): void {
  const where = `${cell.id}`;
  assert.ok(answer.result, `${where}: ${JSON.stringify(answer.error)}`);
  assert.equal(calls.length, 1, `${where}: one call`);
  assert.deepEqual(answer.result.content, cell.first.content, where);
  assert.deepEqual(answer.result.structuredContent, cell.first.structuredContent, where);
  assert.equal(answer.result.isError, cell.first.isError, where);
}

/** Templates the facade must not recognize: passed through unchanged, unsigned. */
function malformed(tool: string, kind: number): [string, ToolResult][] {
  const base = { kind, created_at: 1_700_000_000, tags: [["h", "general"]], content: "x" };
  const variants: [string, Record<string, unknown>][] = [
    ["tags not a list", { ...base, tags: "h general" }],
    ["a tag that is not a list", { ...base, tags: [["h", "x"], "p"] }],
    ["a tag holding a number", { ...base, tags: [["p", 5]] }],
    ["a tag holding null", { ...base, tags: [[null]] }],
    ["a tag holding an object", { ...base, tags: [["h", {}]] }],
    ["no tags", { kind, created_at: 1_700_000_000, content: "x" }],
    ["a negative kind", { ...base, kind: -kind }],
    ["a fractional kind", { ...base, kind: kind + 0.5 }],
    ["a kind as a string", { ...base, kind: String(kind) }],
    ["a null kind", { ...base, kind: null }],
    ["no kind", { created_at: 1_700_000_000, tags: [], content: "x" }],
    ["a kind beyond 2^53", { ...base, kind: 2 ** 53 }],
    ["a kind of 1e21", { ...base, kind: 1e21 }],
    ["content as a number", { ...base, content: 5 }],
    ["no content", { kind, created_at: 1_700_000_000, tags: [] }],
    ["created_at as a string", { ...base, created_at: "now" }],
    ["a fractional created_at", { ...base, created_at: 1_700_000_000.5 }],
    ["an authorization kind with bad tags", { ...base, kind: AUTHORIZATION_KINDS[0], tags: [[1]] }],
  ];
  const results: [string, ToolResult][] = variants.map((
    [name, unsigned],
  ) => [name, templateResult(unsigned)]);
  results.push(
    ["unsigned as a string", templateResult("sign me")],
    ["unsigned as a list", templateResult([kind, [], "x"])],
    ["unsigned null", templateResult(null)],
    ["no structuredContent", {
      content: [{ type: "text", text: JSON.stringify({ unsigned: base }) }],
      isError: false,
    }],
    ["an error result carrying a valid template", templateResult(base, { isError: true })],
  );
  return results.map(([name, result]) => [`${tool}: ${name}`, result]);
}

/** A cell for every curated tool × every kind, with ids `<prefix><n>` in order. */
function everyToolEveryKind(prefix: string): Map<string, Cell> {
  const cells = new Map<string, Cell>();
  for (const tool of [...CONTRACT_READ, ...CONTRACT_WRITE]) {
    for (const kind of KINDS) {
      const n = cells.size;
      const unsigned = template(tool, kind, n);
      const id = `${prefix}${n}`;
      cells.set(id, { id, tool, kind, unsigned, first: templateResult(unsigned) });
    }
  }
  return cells;
}

Deno.test("signing matrix with --allow-writes: every tool × every kind, and malformed templates", async (t) => {
  const relay = await startStrictRelay();
  const cells = everyToolEveryKind("w");
  let n = cells.size;
  const matrix = [...cells.values()];
  // A relay that slips its own pubkey, id and sig into a template changes nothing: the agent signs.
  const foreign = {
    ...template("post_message", 9, n),
    pubkey: "cd".repeat(32),
    id: "ef".repeat(32),
    sig: "00",
  };
  const foreignCell: Cell = {
    id: `w${n++}`,
    tool: "post_message",
    kind: 9,
    unsigned: foreign,
    first: templateResult(foreign),
  };
  cells.set(foreignCell.id, foreignCell);
  // A relay that answers the resubmission with yet another template: passed on, never signed twice.
  const again = template("comment", 1111, n);
  const againCell: Cell = {
    id: `w${n++}`,
    tool: "comment",
    kind: 1111,
    unsigned: again,
    first: templateResult(again),
    second: templateResult({ ...again, content: "sign this one too" }),
  };
  cells.set(againCell.id, againCell);
  const broken: Cell[] = [];
  for (const [tool, kind] of [["post_message", 9], ["request_grant", 1111], ["list_rooms", 9]] as const) {
    for (const [name, first] of malformed(tool, kind)) {
      const cell: Cell = { id: `malformed ${name}`, tool, first };
      cells.set(cell.id, cell);
      broken.push(cell);
    }
  }
  installHandlers(relay, [...CONTRACT_READ, ...CONTRACT_WRITE], cells);
  try {
    await withFacade({ relay, args: ["--allow-writes"] }, async (facade, _relay, key) => {
      await t.step(
        `all ${CONTRACT_READ.length + CONTRACT_WRITE.length} curated tools are exposed`,
        async () => {
          const answer = await facade.request("tools/list", {});
          const names = (answer.result as { tools: { name: string }[] }).tools.map((tool) => tool.name);
          assert.deepEqual(names, [...CONTRACT_READ, ...CONTRACT_WRITE, TINY_DIAGNOSE]);
        },
      );

      const started = Date.now();
      const answers = await callAll(facade, [...cells.values()]);
      console.log(`signing matrix (writes): ${cells.size} calls in ${Date.now() - started} ms`);
      const calls = callsFor(relay);
      const signed: NostrEvent[] = [];

      await t.step(`${matrix.length} cells: signed exactly where the contract allows`, () => {
        let expectedSigned = 0;
        for (const cell of matrix) {
          const answer = answers.get(cell.id)!;
          const relayCalls = calls.get(cell.id) ?? [];
          if (maySign(cell.tool, cell.kind!, true)) {
            expectedSigned++;
            signed.push(checkSigned(cell, answer, relayCalls, key));
          } else checkRefused(cell, answer, relayCalls);
        }
        // Every (tool, kind) pair of the contract's table; request_decision has two.
        assert.equal(expectedSigned, Object.values(CONTRACT_KINDS).flat().length);
      });

      await t.step("a template carrying a foreign pubkey, id and sig is signed by the agent", () => {
        const event = checkSigned(
          foreignCell,
          answers.get(foreignCell.id)!,
          calls.get(foreignCell.id) ?? [],
          key,
        );
        signed.push(event);
        assert.notEqual(event.id, foreign.id);
        assert.notEqual(event.sig, foreign.sig);
      });

      await t.step("a second template in answer to the resubmission: passed on, never signed", () => {
        const answer = answers.get(againCell.id)!;
        const relayCalls = calls.get(againCell.id) ?? [];
        assert.equal(relayCalls.length, 2, "the template call and one resubmission, nothing more");
        const event = relayCalls[1].event as NostrEvent;
        assert.ok(verifyEvent(structuredClone(event)));
        assert.equal(event.content, again.content, "the first template is the one signed");
        signed.push(event);
        assert.ok(answer.result);
        assert.deepEqual(answer.result.content, againCell.second!.content);
        assert.deepEqual(answer.result.structuredContent, againCell.second!.structuredContent);
        assert.equal(answer.result.isError, false);
      });

      await t.step(`${broken.length} malformed templates: passed through unchanged, unsigned`, () => {
        for (const cell of broken) checkPassedThrough(cell, answers.get(cell.id)!, calls.get(cell.id) ?? []);
      });

      await t.step("no other request to the relay carried an event or a signature", () => {
        const carrying = relay.requests.filter((r) => /"sig"\s*:/.test(r.bodyText));
        assert.equal(carrying.length, signed.length);
        assert.deepEqual(
          carrying.map((r) =>
            (r.json as { params: { arguments: { event: NostrEvent } } }).params.arguments.event.id
          )
            .sort(),
          signed.map((event) => event.id).sort(),
        );
        assert.ok(relay.requests.every((r) => r.status === 200), "the relay accepted every request");
        assert.equal(relay.maxConcurrent, 1);
      });
    });
  } finally {
    await relay.close();
  }
});

Deno.test("signing matrix without --allow-writes: nothing is ever signed", async (t) => {
  const relay = await startStrictRelay();
  const cells = everyToolEveryKind("r");
  const broken: Cell[] = [];
  for (const [name, first] of malformed("read_room", 9)) {
    const cell: Cell = { id: `malformed ${name}`, tool: "read_room", first };
    cells.set(cell.id, cell);
    broken.push(cell);
  }
  installHandlers(relay, [...CONTRACT_READ, ...CONTRACT_WRITE], cells);
  try {
    await withFacade({ relay, args: ["--tools", CONTRACT_READ.join(",")] }, async (facade) => {
      await t.step("only the read tools are exposed", async () => {
        const answer = await facade.request("tools/list", {});
        const names = (answer.result as { tools: { name: string }[] }).tools.map((tool) => tool.name);
        assert.deepEqual(names, [...CONTRACT_READ, TINY_DIAGNOSE]);
      });

      const started = Date.now();
      const answers = await callAll(facade, [...cells.values()]);
      console.log(`signing matrix (no writes): ${cells.size} calls in ${Date.now() - started} ms`);
      const calls = callsFor(relay);

      await t.step("read tools × every kind: refused with the contract's text, the relay called once", () => {
        for (const cell of cells.values()) {
          if (!CONTRACT_READ.includes(cell.tool) || cell.kind === undefined) continue;
          assert.ok(!maySign(cell.tool, cell.kind, false));
          checkRefused(cell, answers.get(cell.id)!, calls.get(cell.id) ?? []);
        }
      });

      await t.step("write tools × every kind: Unknown tool, the relay never contacted", () => {
        for (const cell of cells.values()) {
          if (!CONTRACT_WRITE.includes(cell.tool)) continue;
          const answer = answers.get(cell.id)!;
          assert.deepEqual(answer.error, {
            code: INVALID_PARAMS,
            message: `${UNKNOWN_TOOL}: ${cell.tool} (a write tool: --allow-writes exposes it)`,
          }, cell.id);
          assert.equal(calls.get(cell.id), undefined, `${cell.id}: the relay saw nothing`);
        }
      });

      await t.step(`${broken.length} malformed templates from a read tool: passed through unchanged`, () => {
        for (const cell of broken) checkPassedThrough(cell, answers.get(cell.id)!, calls.get(cell.id) ?? []);
      });

      await t.step("not one request carried an event or a signature", () => {
        assert.ok(!relay.requests.some((r) => /"sig"\s*:/.test(r.bodyText)));
        assert.ok(relay.requests.every((r) => r.status === 200));
      });
    });
  } finally {
    await relay.close();
  }
});
