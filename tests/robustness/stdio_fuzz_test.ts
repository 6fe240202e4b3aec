// Fuzzing the host side: over ten thousand generated and mutated lines, fed to
// one long-running `main.ts mcp` through real pipes in chunks of random sizes,
// against a live strict relay. The generator is driven by a seeded PRNG; the
// seed is printed and named in every assertion, and TINYAGENT_FUZZ_SEED=<seed>
// replays a run exactly.
//
// Expected answers come from an oracle written from facade.md's "Host
// protocol" table and JSON-RPC 2.0, applied to each line's bytes as the
// process will decode them; every generator also states what it means to
// produce, and the two must agree before anything is sent.

import assert from "node:assert/strict";
import { concatBytes } from "@noble/hashes/utils.js";
import { startStrictRelay, type StrictRelay } from "../support/strict_relay/mod.ts";
import {
  assertKeyNeverLeaks,
  command,
  commandLine,
  narrowFlags,
  newKey,
  parseAnswerLine,
  ROOT,
  type RpcMessage,
  type TestKey,
  withFacade,
} from "../support/tinyagent.ts";
import { eventually, Rng, seedFrom } from "../support/robustness_kit.ts";
import {
  CONTRACT_READ,
  CONTRACT_WRITE,
  FALLBACK_VERSION,
  HANDSHAKE_VERSIONS,
  INPUT_LINE_LIMIT_BYTES,
  INVALID_PARAMS,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  SESSION_CAPABILITIES,
  TINY_DIAGNOSE,
  UNKNOWN_TOOL,
  VERDICTS,
} from "../support/contract.ts";

const SEED = seedFrom("TINYAGENT_FUZZ_SEED");
const MESSAGES = 12_000;
/** Calls that reach the relay are serialized there; keep them a small share of the run. */
const FORWARD_BUDGET = 160;
const DIAGNOSE_BUDGET = 8;

const KNOWN_METHODS = ["initialize", "ping", "tools/list", "tools/call"];

// ---------------------------------------------------------------------------------------------
// The oracle
// ---------------------------------------------------------------------------------------------

type Id = string | number | null;

type Expect =
  | { kind: "none" }
  | { kind: "error"; id: Id; code: number; message?: string; pattern?: RegExp }
  | {
    kind: "result";
    id: string | number;
    method: string;
    params: unknown;
    /** For tools/call of an exposed tool: what the relay must receive. */
    forwarded?: { name: string; arguments: unknown };
  };

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function isValidId(value: unknown): value is string | number {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/** The answer a line must get, from its bytes as the process decodes them (UTF-8, errors replaced). */
function oracle(bytes: Uint8Array): Expect {
  const line = new TextDecoder().decode(bytes);
  if (line.trim() === "") return { kind: "none" }; // blank lines are not messages
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return { kind: "error", id: null, code: PARSE_ERROR };
  }
  // "A message that is not one JSON object answers -32700": arrays (batches), scalars, null.
  if (!isObject(message)) return { kind: "error", id: null, code: PARSE_ERROR };
  const hasId = Object.hasOwn(message, "id");
  const replyId = isValidId(message.id) ? message.id : null;
  // Not a JSON-RPC 2.0 request: Invalid Request, answered (with id null when the id is unusable).
  if (message.jsonrpc !== "2.0") return { kind: "error", id: replyId, code: INVALID_REQUEST };
  if (typeof message.method !== "string") {
    // A response (result or error, with an id) is never answered: the facade sends no requests.
    if (hasId && (Object.hasOwn(message, "result") || Object.hasOwn(message, "error"))) {
      return { kind: "none" };
    }
    return { kind: "error", id: replyId, code: INVALID_REQUEST };
  }
  if (!hasId) return { kind: "none" }; // a notification, whatever its method
  if (replyId === null) return { kind: "error", id: null, code: INVALID_REQUEST };
  const id = replyId;
  const params = message.params;
  // JSON-RPC: params, when present, is a structured value.
  if (params !== undefined && (params === null || typeof params !== "object")) {
    return { kind: "error", id, code: INVALID_REQUEST };
  }
  const method = message.method;
  if (!KNOWN_METHODS.includes(method)) return { kind: "error", id, code: METHOD_NOT_FOUND };
  if (method !== "tools/call") return { kind: "result", id, method, params };
  if (!isObject(params) || typeof params.name !== "string" || params.name === "") {
    return { kind: "error", id, code: INVALID_PARAMS };
  }
  // `arguments` is optional; null counts as absent (the facade's reading), anything else must be an object.
  const args = params.arguments ?? {};
  if (!isObject(args)) return { kind: "error", id, code: INVALID_PARAMS };
  if (params.name === TINY_DIAGNOSE) return { kind: "result", id, method, params };
  if (!CONTRACT_READ.includes(params.name)) {
    // The contract's words first; a hint may follow (what would expose the tool, or why nothing will).
    const name = params.name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    return {
      kind: "error",
      id,
      code: INVALID_PARAMS,
      pattern: new RegExp(`^${UNKNOWN_TOOL}: ${name}(?: \\(.*\\))?$`, "s"),
    };
  }
  return { kind: "result", id, method, params, forwarded: { name: params.name, arguments: args } };
}

// ---------------------------------------------------------------------------------------------
// The generator
// ---------------------------------------------------------------------------------------------

/** Text placed verbatim in the JSON being built: numbers JSON.stringify cannot write, deep nesting. */
class Raw {
  constructor(readonly text: string) {}
}

/** JSON text of `value`, with Raw pieces verbatim, undefined members left out and `ws` between tokens. */
function encode(value: unknown, ws: () => string = () => ""): string {
  if (value instanceof Raw) return value.text;
  if (Array.isArray(value)) {
    return `[${ws()}${value.map((v) => encode(v, ws)).join(`${ws()},${ws()}`)}${ws()}]`;
  }
  if (value !== null && typeof value === "object") {
    const members = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}${ws()}:${ws()}${encode(v, ws)}`);
    return `{${ws()}${members.join(`${ws()},${ws()}`)}${ws()}}`;
  }
  return JSON.stringify(value);
}

const utf8 = new TextEncoder();

/** What a generator means to produce; checked against the oracle before anything is sent. */
type Intent =
  | "none"
  | "result"
  | "any" // mutations whose outcome only the oracle decides
  | { code: number; nullId?: boolean };

interface Generated {
  category: string;
  line: Uint8Array;
  intent: Intent;
}

const deepArrays = (depth: number) => new Raw("[".repeat(depth) + "]".repeat(depth));
const deepObjects = (depth: number) => new Raw('{"a":'.repeat(depth) + "0" + "}".repeat(depth));

class Generator {
  #rng: Rng;
  #n = 0;
  forwarded = 0;
  diagnosed = 0;
  /** Odd but valid ids, each used once: their JSON round trip may change them (-0 is answered as 0). */
  #oddIds: unknown[] = [
    new Raw("-0"),
    new Raw("1e308"),
    new Raw("9007199254740993"), // 2^53+1, read as 2^53
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    new Raw("-1.7976931348623157e308"),
    new Raw("1E2"),
    new Raw("0.1e1"),
    Number.MAX_SAFE_INTEGER,
    "",
    " ",
    "null",
    "\\",
    "\u0000\u0001\u001f",
    "💩".repeat(2000),
    new Raw('"\\ud83d\\udca9"'),
    "\u202e\u2066right-to-left\u2069",
    "\ufeffbom-in-an-id",
    new Raw('"\\u2028\\u2029"'),
    `long-${"z".repeat(200_000)}`,
  ];

  constructor(rng: Rng) {
    this.#rng = rng;
  }

  /** A fresh valid id, unique in this run by construction (its counter is in it). */
  id(): unknown {
    const n = this.#n++;
    const rng = this.#rng;
    switch (rng.int(10)) {
      case 0:
        return 1_000_000 + n;
      case 1:
        return -(n + 1);
      case 2:
        return n + 0.5;
      case 3:
        return `${n}`;
      case 4:
        return `é-${n}-🎉`;
      case 5:
        return `q"\\/${n}\u2028\u0000\t`;
      case 6:
        return `\ud800-${n}`; // a lone surrogate, written by JSON.stringify as an escape
      case 7:
        return rng.chance(0.03) ? `L${n}-${"x".repeat(rng.range(1000, 100_000))}` : `s${n}`;
      case 8:
        return new Raw(`${2_000_000 + n}.000`);
      default:
        return `id-${n}`;
    }
  }

  #ws(): () => string {
    const rng = this.#rng;
    if (rng.chance(0.85)) return () => "";
    return () => rng.chance(0.6) ? "" : rng.pick([" ", "\t", "\r", "  ", " \r\t "]);
  }

  /** An object with its members in random order. */
  #shuffled(fields: Record<string, unknown>): Record<string, unknown> {
    const entries = Object.entries(fields);
    for (let i = entries.length - 1; i > 0; i--) {
      const j = this.#rng.int(i + 1);
      [entries[i], entries[j]] = [entries[j], entries[i]];
    }
    return Object.fromEntries(entries);
  }

  #text(value: unknown, padded = true): string {
    const rng = this.#rng;
    const text = encode(value, this.#ws());
    if (!padded || rng.chance(0.9)) return text;
    return rng.pick(["", " ", "\t", "\r"]) + text + rng.pick(["", " ", "\t", "\r"]);
  }

  #out(category: string, text: string | Uint8Array, intent: Intent): Generated {
    return { category, line: typeof text === "string" ? utf8.encode(text) : text, intent };
  }

  #randomString(max = 24): string {
    const rng = this.#rng;
    const pool = [
      "a",
      "Z",
      "9",
      " ",
      "/",
      "_",
      "é",
      "中",
      "🎉",
      "\u0000",
      '"',
      "\\",
      "\u2028",
      "\ud800",
      "\n",
    ];
    let s = "";
    const length = rng.int(max);
    for (let i = 0; i < length; i++) s += rng.pick(pool);
    return s;
  }

  #randomValue(depth = 0): unknown {
    const rng = this.#rng;
    switch (rng.int(depth > 2 ? 5 : 7)) {
      case 0:
        return this.#randomString();
      case 1:
        return rng.int(2 ** 31) - 2 ** 30;
      case 2:
        return rng.pick([true, false, null, 0.5, -0, 1e300]);
      case 3:
        return rng.chance(0.5) ? "" : "x".repeat(rng.int(3000));
      case 4:
        return rng.pick([new Raw("1e400"), new Raw("-0.0E-0"), new Raw("123456789012345678901234567890")]);
      case 5:
        return Array.from({ length: rng.int(4) }, () => this.#randomValue(depth + 1));
      default:
        return this.#randomObject(depth + 1);
    }
  }

  #randomObject(depth = 0): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const keys = ["id", "room", "cursor", "limit", "sha256", "name", "arguments", "é", "", "a b", "event"];
    for (let i = this.#rng.int(4); i > 0; i--) out[this.#rng.pick(keys)] = this.#randomValue(depth);
    return out;
  }

  /** A method that is none the session answers (the four of the facade, resources/*, completion/complete). */
  #unknownMethod(): string {
    const method = this.#rng.pick([
      "resources/lists",
      "prompts/list",
      "server/discover",
      "completion/completes",
      "logging/setLevel",
      "tools/list/",
      "Tools/Call",
      "PING",
      " ping",
      "ping ",
      "initialize\u0000",
      "",
      "__proto__",
      "constructor",
      "toString",
      "hasOwnProperty",
      "notifications/initialized",
      this.#randomString(40),
    ]);
    return KNOWN_METHODS.includes(method) ? `${method}?` : method;
  }

  #unexposedName(): string {
    return this.#rng.pick([
      ...CONTRACT_WRITE,
      "publish_event",
      "read_management",
      "set_status",
      "publish_site",
      "create_room",
      "run_job",
      "__proto__",
      "constructor",
      "toString",
      "LIST_ROOMS",
      " list_rooms",
      "list_rooms\u0000",
      "list_rooms ",
      "tiny_diagnose ",
      "中文",
      this.#randomString(30) || "x",
    ]);
  }

  #ping(id: unknown): Record<string, unknown> {
    const fields: Record<string, unknown> = { jsonrpc: "2.0", id, method: "ping" };
    const roll = this.#rng.int(4);
    if (roll === 1) fields.params = {};
    if (roll === 2) fields.params = [];
    if (roll === 3) fields.params = { _meta: { progressToken: this.#randomValue() } };
    return this.#shuffled(fields);
  }

  #unexposedCall(id: unknown): Record<string, unknown> {
    const params: Record<string, unknown> = { name: this.#unexposedName() };
    if (this.#rng.chance(0.7)) params.arguments = this.#randomObject();
    return this.#shuffled({ jsonrpc: "2.0", id, method: "tools/call", params: this.#shuffled(params) });
  }

  /** A well-formed request: ping, initialize, tools/list, an unknown method or an unexposed tool. */
  #validRequest(id: unknown): Record<string, unknown> {
    switch (this.#rng.int(5)) {
      case 0:
        return this.#ping(id);
      case 1:
        return this.#shuffled({
          jsonrpc: "2.0",
          id,
          method: "initialize",
          params: { protocolVersion: this.#rng.pick([...HANDSHAKE_VERSIONS, "2099-01-01"]) },
        });
      case 2:
        return { jsonrpc: "2.0", id, method: "tools/list" };
      case 3:
        return { jsonrpc: "2.0", id, method: this.#unknownMethod() };
      default:
        return this.#unexposedCall(id);
    }
  }

  next(): Generated {
    const rng = this.#rng;
    const canForward = this.forwarded < FORWARD_BUDGET;
    const category = rng.weighted<string>([
      ["ping", 12],
      ["initialize", 4],
      ["tools/list", 3],
      ["unknown method", 7],
      ["unexposed tool", 9],
      ["exposed tool", canForward ? 1.3 : 0],
      ["tiny_diagnose", this.diagnosed < DIAGNOSE_BUDGET ? 0.1 : 0],
      ["notification", 8],
      ["stray response", 2],
      ["wrong type", 18],
      ["odd id", this.#oddIds.length ? 0.5 : 0],
      ["invalid id", 4],
      ["truncated", 8],
      ["not an object", 3],
      ["garbage bytes", 4],
      ["deep nesting", 0.3],
      ["blank", 4],
      ["CR inside a line", 1.5],
      ["invalid UTF-8", 3],
      ["prototype keys", 1],
      ["duplicate keys", 1],
      ["BOM inside a line", 0.5],
      ["big valid line", 0.3],
    ]);
    switch (category) {
      case "ping":
        return this.#out(category, this.#text(this.#ping(this.id())), "result");
      case "initialize": {
        const version = rng.pick([...HANDSHAKE_VERSIONS, "2099-01-01", "", 20250618, null, undefined]);
        const params = rng.chance(0.8)
          ? { protocolVersion: version, capabilities: {}, clientInfo: { name: "fuzz", version: "1" } }
          : rng.pick([undefined, [], {}]);
        return this.#out(
          category,
          this.#text(this.#shuffled({ jsonrpc: "2.0", id: this.id(), method: "initialize", params })),
          "result",
        );
      }
      case "tools/list":
        return this.#out(
          category,
          this.#text({
            jsonrpc: "2.0",
            id: this.id(),
            method: "tools/list",
            params: rng.pick([undefined, {}]),
          }),
          "result",
        );
      case "unknown method":
        return this.#out(
          category,
          this.#text(this.#shuffled({ jsonrpc: "2.0", id: this.id(), method: this.#unknownMethod() })),
          { code: METHOD_NOT_FOUND },
        );
      case "unexposed tool":
        return this.#out(category, this.#text(this.#unexposedCall(this.id())), { code: INVALID_PARAMS });
      case "exposed tool": {
        this.forwarded++;
        const params: Record<string, unknown> = { name: rng.pick(CONTRACT_READ) };
        if (rng.chance(0.8)) params.arguments = { ...this.#randomObject(), fuzz: `call-${this.#n}` };
        return this.#out(
          category,
          this.#text(this.#shuffled({ jsonrpc: "2.0", id: this.id(), method: "tools/call", params })),
          "result",
        );
      }
      case "tiny_diagnose": {
        this.diagnosed++;
        const args = rng.pick([{}, { rooms: ["general", "ops"], kinds: [9, 1111] }, { rooms: 5 }]);
        return this.#out(
          category,
          this.#text({
            jsonrpc: "2.0",
            id: this.id(),
            method: "tools/call",
            params: { name: TINY_DIAGNOSE, arguments: args },
          }),
          "result",
        );
      }
      case "notification": {
        const method = rng.pick([
          "notifications/initialized",
          "notifications/cancelled",
          "notifications/progress",
          "ping",
          "initialize",
          "tools/list",
          "tools/call", // an exposed tool as a notification must not reach the relay
          this.#unknownMethod(),
        ]);
        const params = method === "tools/call"
          ? { name: rng.pick(CONTRACT_READ), arguments: {} }
          : rng.pick([undefined, {}, [], { requestId: this.id() }]);
        return this.#out(category, this.#text(this.#shuffled({ jsonrpc: "2.0", method, params })), "none");
      }
      case "stray response": {
        const id = rng.pick([this.id(), null, { odd: true }, 7]);
        const body = rng.chance(0.5)
          ? { result: rng.pick([{}, null, 1, "x"]) }
          : { error: { code: -32000, message: "from the host" } };
        return this.#out(category, this.#text(this.#shuffled({ jsonrpc: "2.0", id, ...body })), "none");
      }
      case "wrong type":
        return this.#wrongType();
      case "odd id": {
        const id = this.#oddIds.splice(rng.int(this.#oddIds.length), 1)[0];
        return this.#out(category, this.#text(this.#validRequest(id)), "any");
      }
      case "invalid id": {
        const id = rng.pick<unknown>([
          null,
          true,
          false,
          [],
          {},
          [1, 2],
          { nested: { id: 1 } },
          { id: "x" },
          new Raw("1e400"),
          new Raw("-1e400"),
          deepObjects(rng.range(10, 500)),
          deepArrays(rng.range(10, 500)),
        ]);
        return this.#out(
          category,
          this.#text(this.#validRequest(id)),
          { code: INVALID_REQUEST, nullId: true },
        );
      }
      case "truncated": {
        const whole = utf8.encode(encode(this.#validRequest(this.id())));
        const cut = rng.range(1, whole.length - 1);
        return this.#out(category, whole.subarray(0, cut), { code: PARSE_ERROR, nullId: true });
      }
      case "not an object": {
        const text = rng.pick([
          "[]",
          `[${encode(this.#ping(this.id()))}]`,
          `[${encode(this.#ping(this.id()))},${encode(this.#ping(this.id()))}]`,
          "1",
          "-0",
          "1e400",
          '"ping"',
          "null",
          "true",
          "false",
          '"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"method\\":\\"ping\\"}"',
        ]);
        return this.#out(category, text, { code: PARSE_ERROR, nullId: true });
      }
      case "garbage bytes": {
        const length = rng.range(1, 300);
        const bytes = new Uint8Array(length);
        const flavour = rng.int(3);
        for (let i = 0; i < length; i++) {
          let byte = flavour === 0
            ? rng.range(0x21, 0x7e)
            : flavour === 1
            ? rng.int(256)
            : rng.range(0x80, 0xff);
          if (byte === 0x0a) byte = 0x0b;
          bytes[i] = byte;
        }
        bytes[0] = rng.pick([0x7b, 0x5b, 0x22, 0x80, 0xff, 0x00, 0x78]); // never a blank line
        return this.#out(category, bytes, "any");
      }
      case "deep nesting":
        return this.#deep();
      case "blank":
        return this.#out(category, rng.pick(["", " ", "\t", "\r", " \t \r ", "   "]), "none");
      case "CR inside a line": {
        // Only LF ends a line: two requests separated by a bare CR are one line, and not JSON.
        const text = `${encode(this.#ping(this.id()))}\r${encode(this.#ping(this.id()))}`;
        return this.#out(category, text, { code: PARSE_ERROR, nullId: true });
      }
      case "invalid UTF-8":
        return this.#invalidUtf8();
      case "prototype keys": {
        if (rng.chance(0.5)) {
          // `params.name` only inherited through a "__proto__" member is no name at all.
          const text = `{"jsonrpc":"2.0","id":${encode(this.id())},"method":"tools/call",` +
            `"params":{"__proto__":{"name":"list_rooms"},"arguments":{}}}`;
          return this.#out(category, text, { code: INVALID_PARAMS });
        }
        const text = `{"__proto__":{"method":"tools/call","id":"hijack"},${
          encode(this.#ping(this.id())).slice(1)
        }`;
        return this.#out(category, text, "result");
      }
      case "duplicate keys": {
        // The last member wins (JSON.parse): the first id is never answered.
        const text = `{"id":${encode(this.id())},"method":"tools/call",${
          encode(this.#ping(this.id())).slice(1)
        }`;
        return this.#out(category, text, "result");
      }
      case "BOM inside a line": {
        const text = encode(this.#ping(this.id())).replace(":", ":\ufeff");
        return this.#out(category, text, { code: PARSE_ERROR, nullId: true });
      }
      default: { // big valid line
        const request = this.#ping(this.id());
        request.params = { blob: "é".repeat(rng.range(10_000, 400_000)) };
        return this.#out(category, encode(request), "result");
      }
    }
  }

  /** A request with one member of the wrong type, or several. */
  #wrongType(): Generated {
    const rng = this.#rng;
    const field = rng.pick([
      "jsonrpc",
      "id",
      "method",
      "params",
      "params.name",
      "params.arguments",
      "several",
    ]);
    const id = this.id();
    const call = (params: unknown) => ({ jsonrpc: "2.0", id, method: "tools/call", params });
    const exposed = rng.pick(CONTRACT_READ);
    let message: Record<string, unknown>;
    let intent: Intent;
    switch (field) {
      case "jsonrpc":
        message = this.#validRequest(id);
        message.jsonrpc = rng.pick<unknown>([
          "2",
          "1.0",
          "2.0 ",
          " 2.0",
          "",
          2,
          new Raw("2.0"),
          null,
          true,
          [],
          ["2.0"],
          {},
          { version: "2.0" },
          undefined,
        ]);
        intent = { code: INVALID_REQUEST };
        break;
      case "id":
        message = this.#validRequest(rng.pick<unknown>([null, true, false, [], {}, ["a"], { a: 1 }]));
        intent = { code: INVALID_REQUEST, nullId: true };
        break;
      case "method":
        message = this.#validRequest(id);
        message.method = rng.pick<unknown>([
          null,
          1,
          -1.5,
          true,
          [],
          ["ping"],
          {},
          { name: "ping" },
          undefined,
        ]);
        intent = { code: INVALID_REQUEST };
        break;
      case "params":
        message = this.#validRequest(id);
        message.params = rng.pick<unknown>(["x", "", 0, 1, true, false, null, new Raw("-0")]);
        intent = { code: INVALID_REQUEST };
        break;
      case "params.name":
        message = call({
          name: rng.pick<unknown>([
            1,
            null,
            true,
            [],
            ["list_rooms"],
            {},
            { name: "list_rooms" },
            "",
            undefined,
          ]),
          arguments: {},
        });
        intent = { code: INVALID_PARAMS };
        break;
      case "params.arguments":
        // Checked before the exposure and the relay: refused whatever the tool.
        message = call({
          name: rng.chance(0.5) ? exposed : this.#unexposedName(),
          arguments: rng.pick<unknown>(["x", "", 0, 1.5, true, false, [], [{}], new Raw("1e400"), [
            "a",
            "b",
          ]]),
        });
        intent = { code: INVALID_PARAMS };
        break;
      default: {
        // Several wrong at once: whichever is reported, it is one error, with the id only if usable.
        message = this.#validRequest(rng.chance(0.5) ? id : rng.pick<unknown>([null, {}, []]));
        for (const key of ["jsonrpc", "method", "params"]) {
          if (rng.chance(0.6)) message[key] = rng.pick<unknown>([null, 7, [], {}, "", false]);
        }
        intent = "any";
      }
    }
    return this.#out(`wrong type: ${field}`, this.#text(this.#shuffled(message)), intent);
  }

  #deep(): Generated {
    const rng = this.#rng;
    const depth = rng.chance(0.1) ? 100_000 : 10_000;
    const id = this.id();
    const nested = rng.chance(0.5) ? deepArrays(depth) : deepObjects(depth);
    switch (rng.int(7)) {
      case 0:
        return this.#out(
          "deep nesting: params",
          encode({ jsonrpc: "2.0", id, method: "ping", params: [nested] }),
          "result",
        );
      case 1:
        return this.#out(
          "deep nesting: params of initialize",
          encode({ jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion: nested } }),
          "result",
        );
      case 2:
        return this.#out(
          "deep nesting: params of tools/call",
          encode({ jsonrpc: "2.0", id, method: "tools/call", params: [nested] }),
          { code: INVALID_PARAMS },
        );
      case 3:
        return this.#out(
          "deep nesting: arguments of an unexposed tool",
          encode({
            jsonrpc: "2.0",
            id,
            method: "tools/call",
            params: { name: this.#unexposedName(), arguments: { deep: nested } },
          }),
          { code: INVALID_PARAMS },
        );
      case 4:
        return this.#out(
          "deep nesting: the id",
          encode({ jsonrpc: "2.0", id: nested, method: "ping" }),
          { code: INVALID_REQUEST, nullId: true },
        );
      case 5:
        return this.#out(
          "deep nesting: jsonrpc",
          encode({ jsonrpc: nested, id, method: "ping" }),
          { code: INVALID_REQUEST },
        );
      default:
        if (this.forwarded >= FORWARD_BUDGET) {
          return this.#out(
            "deep nesting: a notification",
            encode({ jsonrpc: "2.0", method: "ping", params: [nested] }),
            "none",
          );
        }
        this.forwarded++;
        // Forwarded to the relay as it is: the depth survives the round trip.
        return this.#out(
          "deep nesting: arguments of an exposed tool",
          encode({
            jsonrpc: "2.0",
            id,
            method: "tools/call",
            params: { name: rng.pick(CONTRACT_READ), arguments: { deep: deepArrays(10_000) } },
          }),
          "result",
        );
    }
  }

  #invalidUtf8(): Generated {
    const rng = this.#rng;
    const bad = rng.pick([
      [0xff],
      [0xfe, 0xff],
      [0xc0, 0x80], // overlong NUL
      [0xed, 0xa0, 0x80], // an encoded surrogate
      [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
      [0xe2, 0x82], // cut short
      [0x80, 0x80, 0x80],
      [0xf0, 0x9f, 0x8e], // a 4-byte sequence missing its last byte
    ]).map((b) => b);
    const badBytes = Uint8Array.from(bad);
    const n = this.#n++;
    switch (rng.int(3)) {
      case 0: {
        // In the id: the id the host gets back is the decoded one, with U+FFFD.
        const head = utf8.encode(`{"jsonrpc":"2.0","method":"ping","id":"utf8-${n}-`);
        return this.#out(
          "invalid UTF-8: in the id",
          concatBytes(head, badBytes, utf8.encode('"}')),
          "result",
        );
      }
      case 1: {
        const head = utf8.encode(`{"jsonrpc":"2.0","id":"utf8-${n}","method":"ping","params":{"text":"`);
        return this.#out(
          "invalid UTF-8: in a string",
          concatBytes(head, badBytes, utf8.encode('"}}')),
          "result",
        );
      }
      default: {
        const head = utf8.encode(`{"jsonrpc":"2.0","id":"utf8-${n}",`);
        return this.#out(
          "invalid UTF-8: between members",
          concatBytes(head, badBytes, utf8.encode('"method":"ping"}')),
          { code: PARSE_ERROR, nullId: true },
        );
      }
    }
  }
}

function intentHolds(intent: Intent, expect: Expect): boolean {
  if (intent === "any") return true;
  if (intent === "none" || intent === "result") return expect.kind === intent;
  if (expect.kind !== "error" || expect.code !== intent.code) return false;
  return !intent.nullId || expect.id === null;
}

/** Answers are matched on their id as JSON: -0 is answered as 0, 2^53+1 as 2^53. */
const idKey = (id: unknown) => JSON.stringify(id);

/** The contract accepts input lines up to 48 MiB; a longer one is refused with Invalid Request. */
const LINE_LIMIT = INPUT_LINE_LIMIT_BYTES;

/**
 * A line just over the limit, written in pieces as it is fed rather than held:
 * its head, `fill` bytes of filler inside a string, and its tail. `id` is the
 * id the refusal must carry: the request's own, found wherever it stands.
 */
interface Overlong {
  category: string;
  head: Uint8Array;
  fill: number;
  tail: Uint8Array;
  id: string | number | null;
}

function overlongLines(rng: Rng, [first, last, escaped]: (string | number)[]): Overlong[] {
  const fill = () => LINE_LIMIT + rng.range(1, 64 * 1024);
  const call = '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"read_file","arguments":' +
    '{"note":"\\"id\\":666,","nested":{"id":777},"list":[{"id":888}],"sha256":"';
  return [
    {
      category: "overlong line: the id first",
      head: utf8.encode(`{"id":${JSON.stringify(first)},${call.slice(1)}`),
      fill: fill(),
      tail: utf8.encode('"}}}'),
      id: first,
    },
    {
      category: "overlong line: the id last, after decoys",
      head: utf8.encode(call),
      fill: fill(),
      tail: utf8.encode(`"}},"id":${JSON.stringify(last)}}`),
      id: last,
    },
    {
      // JSON.parse reads the member "i\u0064" as "id": so must the scanner.
      category: "overlong line: the id under an escaped name",
      head: utf8.encode(call),
      fill: fill(),
      tail: utf8.encode(`"}},"i\\u0064":${JSON.stringify(escaped)}}`),
      id: escaped,
    },
    {
      category: "overlong line: no id",
      head: utf8.encode(call),
      fill: fill(),
      tail: utf8.encode('"}}}'),
      id: null,
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------

Deno.test(`stdio fuzz: ${MESSAGES} generated lines through one process (seed ${SEED})`, async (t) => {
  console.log(`stdio fuzz seed: ${SEED} (replay with TINYAGENT_FUZZ_SEED=${SEED})`);
  const at = `[seed ${SEED}] `;
  const rng = new Rng(SEED);
  const generator = new Generator(rng);

  // Generate, and decide every answer before anything is sent.
  const lines: Generated[] = [];
  const expects: Expect[] = [];
  const categories = new Map<string, number>();
  while (lines.length < MESSAGES) {
    const generated = generator.next();
    assert.ok(!generated.line.includes(0x0a), `${at}generator bug: a newline inside ${generated.category}`);
    // Most lines end with LF, some with CRLF (the CR is whitespace to JSON).
    if (rng.chance(0.3)) generated.line = concatBytes(generated.line, Uint8Array.of(0x0d));
    const expect = oracle(generated.line);
    if (!intentHolds(generated.intent, expect)) {
      assert.fail(
        `${at}generator and oracle disagree on a ${generated.category} line: meant ${
          JSON.stringify(generated.intent)
        }, oracle says ${JSON.stringify(expect).slice(0, 300)}; line ${
          JSON.stringify(new TextDecoder().decode(generated.line).slice(0, 300))
        }`,
      );
    }
    lines.push(generated);
    expects.push(expect);
    const family = generated.category.split(":")[0];
    categories.set(family, (categories.get(family) ?? 0) + 1);
  }

  // Four lines over the 48 MiB limit, placed among the others.
  const overlong = overlongLines(rng, ["overlong-first-é", `overlong-last-${SEED}`, 9_000_000_001]);
  const after = new Map<number, Overlong>();
  for (const line of overlong) {
    let at;
    do at = rng.int(lines.length - 1); while (after.has(at));
    after.set(at, line);
  }

  // The answers owed: one per usable id, each id unique; a count of id-null errors by code.
  const owed = new Map<string, { expect: Expect; category: string; index: number }>();
  const nullCodes = new Map<number, number>();
  const forwarded: string[] = [];
  const owe = (expect: Expect, category: string, index: number) => {
    if (expect.kind === "none") return;
    if (expect.id === null) {
      assert.equal(expect.kind, "error");
      const code = (expect as { code: number }).code;
      nullCodes.set(code, (nullCodes.get(code) ?? 0) + 1);
      return;
    }
    const key = idKey(expect.id);
    assert.ok(!owed.has(key), `${at}generator bug: id ${key.slice(0, 80)} used twice`);
    owed.set(key, { expect, category, index });
    if (expect.kind === "result" && expect.forwarded) forwarded.push(JSON.stringify(expect.forwarded));
  };
  for (const [index, expect] of expects.entries()) owe(expect, lines[index].category, index);
  for (const line of overlong) {
    owe({ kind: "error", id: line.id, code: INVALID_REQUEST, pattern: /48 MiB/ }, line.category, -1);
  }
  const nullTotal = [...nullCodes.values()].reduce((a, b) => a + b, 0);
  console.log(
    `stdio fuzz: ${lines.length} lines and ${overlong.length} over 48 MiB; ${owed.size} answers owed by id, ` +
      `${nullTotal} with id null, ${forwarded.length} forwarded to the relay; ${
        [...categories].sort((a, b) => b[1] - a[1]).map(([c, n]) => `${c} ${n}`).join(", ")
      }`,
  );

  // The byte stream: every line ends with LF except, sometimes, the last; the overlong
  // lines are written piece by piece where they stand.
  const segments: (Uint8Array | Overlong)[] = [];
  let parts: Uint8Array[] = [];
  for (const [i, { line }] of lines.entries()) {
    parts.push(line);
    if (i < lines.length - 1 || rng.chance(0.5)) parts.push(Uint8Array.of(0x0a));
    const big = after.get(i);
    if (big) {
      segments.push(concatBytes(...parts), big);
      parts = [];
    }
  }
  segments.push(concatBytes(...parts));
  const filler = new Uint8Array(4 * 1024 * 1024).fill(0x79); // "y"

  const relay = await startStrictRelay();
  const key = newKey();
  try {
    let started = 0;
    const output = await withFacade({ relay, key, context: at }, async (facade) => {
      let chunks = 0;
      let total = 0;
      await t.step("feed every line in chunks of random sizes", async () => {
        for (const segment of segments) {
          if (!(segment instanceof Uint8Array)) {
            await facade.writeRaw(segment.head);
            for (let left = segment.fill; left > 0; chunks++) {
              const size = Math.min(left, rng.range(64 * 1024, filler.length));
              await facade.writeRaw(filler.subarray(0, size));
              left -= size;
            }
            await facade.writeRaw(concatBytes(segment.tail, Uint8Array.of(0x0a)));
            total += segment.head.length + segment.fill + segment.tail.length + 1;
            continue;
          }
          for (let offset = 0; offset < segment.length; chunks++) {
            const size = rng.weighted<() => number>([
              [() => rng.range(1, 4), 1],
              [() => rng.range(5, 512), 4],
              [() => rng.range(513, 16_384), 4],
              [() => rng.range(16_385, 262_144), 1],
            ])();
            await facade.writeRaw(segment.subarray(offset, offset + size));
            offset += size;
            if (rng.chance(0.01)) await new Promise((resolve) => setTimeout(resolve, rng.int(5)));
          }
          total += segment.length;
        }
      });
      console.log(`stdio fuzz: ${total} bytes in ${chunks} writes`);
      started = Date.now();
    });
    const { code, lines: out, stderr } = output;
    console.log(`stdio fuzz: all answered ${Date.now() - started} ms after end of input`);

    await t.step("the process survives and exits 0 after end of input", () => {
      assert.equal(code, 0, `${at}exit status ${code}; stderr:\n${stderr.slice(-2000)}`);
      assert.ok(
        !/internal error/i.test(stderr),
        `${at}a request failed inside the facade:\n${stderr.slice(-2000)}`,
      );
    });

    const answers: RpcMessage[] = [];
    await t.step("stdout is JSON-RPC 2.0 answers only, one per line", () => {
      for (const [i, line] of out.entries()) answers.push(parseAnswerLine(line, `${at}stdout line ${i}: `));
    });

    await t.step("every usable id is answered exactly once; notifications and responses never", () => {
      const seen = new Set<string>();
      const gotNull = new Map<number, number>();
      for (const answer of answers) {
        if (answer.id === null) {
          const code = answer.error?.code;
          assert.ok(
            code !== undefined,
            `${at}a result with id null: ${JSON.stringify(answer).slice(0, 200)}`,
          );
          gotNull.set(code, (gotNull.get(code) ?? 0) + 1);
          continue;
        }
        const key = idKey(answer.id);
        assert.ok(owed.has(key), `${at}an answer for an id nobody asked with: ${key.slice(0, 200)}`);
        assert.ok(!seen.has(key), `${at}id ${key.slice(0, 200)} answered twice`);
        seen.add(key);
      }
      const missing = [...owed.keys()].filter((key) => !seen.has(key));
      assert.deepEqual(
        missing.map((key) => `${owed.get(key)!.category}: ${key.slice(0, 80)}`),
        [],
        `${at}requests never answered`,
      );
      assert.deepEqual(
        Object.fromEntries([...gotNull].sort()),
        Object.fromEntries([...nullCodes].sort()),
        `${at}id-null errors by code (answered vs expected)`,
      );
    });

    await t.step("each answer is the contract's", () => {
      for (const answer of answers) {
        if (answer.id === null) continue;
        const { expect, category, index } = owed.get(idKey(answer.id))!;
        const where = `${at}${category} line ${index} (id ${idKey(answer.id).slice(0, 60)})`;
        if (expect.kind === "error") {
          assert.ok(
            answer.error,
            `${where}: expected error ${expect.code}, got ${JSON.stringify(answer).slice(0, 300)}`,
          );
          assert.equal(answer.error.code, expect.code, `${where}: ${answer.error.message}`);
          if (expect.message) assert.equal(answer.error.message, expect.message, where);
          if (expect.pattern) assert.match(answer.error.message, expect.pattern, where);
          continue;
        }
        assert.ok(answer.result, `${where}: expected a result, got ${JSON.stringify(answer.error)}`);
        const result = answer.result;
        switch ((expect as { method: string }).method) {
          case "ping":
            assert.deepEqual(result, {}, where);
            break;
          case "initialize": {
            const params = (expect as { params: unknown }).params;
            const asked = isObject(params) ? params.protocolVersion : undefined;
            const version = typeof asked === "string" && HANDSHAKE_VERSIONS.includes(asked)
              ? asked
              : FALLBACK_VERSION;
            assert.equal(result.protocolVersion, version, where);
            assert.deepEqual(result.capabilities, SESSION_CAPABILITIES, where);
            assert.equal((result.serverInfo as { name: string }).name, "tinyagent", where);
            break;
          }
          case "tools/list":
            assert.deepEqual(
              (result.tools as { name: string }[]).map((tool) => tool.name),
              [...CONTRACT_READ, TINY_DIAGNOSE],
              where,
            );
            break;
          default: {
            assert.ok(Array.isArray(result.content), `${where}: content is not a list`);
            assert.equal(typeof result.isError, "boolean", where);
            const name = (expect as { params: { name: string } }).params.name;
            if (name === TINY_DIAGNOSE && result.isError === false) {
              assert.match(
                (result.content as { text: string }[])[0].text,
                new RegExp(`^(${VERDICTS.join("|")}): `),
                where,
              );
            }
          }
        }
      }
    });

    await t.step("the relay got exactly the forwarded calls, each once, every token accepted", () => {
      const calls = relay.requests.filter((r) =>
        r.path === "/mcp" && (r.json as { method?: string })?.method === "tools/call"
      );
      const received = calls.map((r) => {
        const params = (r.json as { params: { name: string; arguments: unknown } }).params;
        return JSON.stringify({ name: params.name, arguments: params.arguments });
      });
      assert.deepEqual(received.toSorted(), forwarded.toSorted(), `${at}tools/call requests at the relay`);
      for (const request of relay.requests) {
        assert.equal(
          request.status,
          200,
          `${at}the relay refused ${request.path}: ${request.bodyText.slice(0, 200)}`,
        );
      }
      assert.equal(relay.maxConcurrent, 1, `${at}relay calls overlapped`);
    });

    await t.step("the key never shows", () => {
      assertKeyNeverLeaks(key, { lines: out, stderr }, [relay], ` ${at}`);
    });
  } finally {
    await relay.close();
  }
});

/** Spawns tinyagent as a host would, with stdio under the test's control. */
function spawnFacade(relay: StrictRelay, key: TestKey, extra: string[] = []): Deno.ChildProcess {
  return command({
    flags: narrowFlags(relay.host),
    args: ["mcp", "--relay", relay.url, ...extra],
    env: { TINY_PRIVATE_KEY: key.hex },
  }).spawn();
}

function line(message: unknown): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(message)}\n`);
}

Deno.test("the host stops reading stdout: tinyagent exits with stdin still open, and sends and signs nothing more", async (t) => {
  const relay = await startStrictRelay();
  const key = newKey();
  // A write in flight when the pipe breaks: its tools/list and first call are slow on the relay.
  relay.delay(300);
  const child = spawnFacade(relay, key, ["--allow-writes"]);
  const stderr = new Response(child.stderr).text();
  const writer = child.stdin.getWriter();
  try {
    await child.stdout.cancel(); // the host is gone: the next answer meets a broken pipe
    await writer.write(line({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "post_message", arguments: { room: "general", content: "for nobody" } },
    }));
    await writer.write(line({ jsonrpc: "2.0", id: 2, method: "ping" }));
    const status = await child.status; // stdin is never closed: only the broken stdout can end it
    const log = await stderr;
    await t.step("it ends on its own, without a trace", () => {
      assert.equal(status.code, 0, log);
      assert.match(log, /the host is gone: stdout closed/);
      assert.ok(!/internal error|Uncaught|error:/i.test(log.replace(/tinyagent: /g, "")), log);
    });
    await t.step("nothing more reached the relay: no signed event, no publish", () => {
      assert.equal(relay.published.length, 0);
      for (const request of relay.requests) {
        const args = (request.json as { params?: { arguments?: Record<string, unknown> } })?.params
          ?.arguments;
        assert.equal(args?.event, undefined, "no signed resubmission was sent");
      }
    });
    assertKeyNeverLeaks(key, { lines: [], stderr: log }, [relay]);
  } finally {
    await writer.close().catch(() => {});
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await child.status;
    await relay.close();
  }
});

Deno.test("the host process dies with a relay call hung: tinyagent exits without waiting for the call's bound", async () => {
  const relay = await startStrictRelay();
  const key = newKey();
  relay.script({ hang: true }); // the table fetch never answers
  const { program, args } = commandLine({
    flags: narrowFlags(relay.host),
    args: ["mcp", "--relay", relay.url, "--timeout", "600"],
  });
  // A stand-in host: a process that starts tinyagent on its own stdio, then is killed outright.
  const host = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `const c = new Deno.Command(${JSON.stringify(program)}, { args: ${JSON.stringify(args)}, ` +
      `stdin: "inherit", stdout: "inherit", stderr: "inherit" }).spawn(); ` +
      `console.error("child " + c.pid); await c.status;`,
    ],
    cwd: ROOT,
    env: { TINY_PRIVATE_KEY: key.hex, DENO_NO_UPDATE_CHECK: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderrReader = host.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let log = "";
  try {
    let pid: number | undefined;
    while (pid === undefined) {
      const { value, done } = await stderrReader.read();
      if (done) throw new Error(`the stand-in host ended: ${log}`);
      log += value;
      const match = /child (\d+)/.exec(log);
      if (match) pid = Number(match[1]);
    }
    const writer = host.stdin.getWriter();
    await writer.write(line({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
    await eventually(() => relay.inFlight === 1, "the table fetch hangs on the relay");
    host.kill("SIGKILL");
    await host.status;
    // The call's bound is 600 s; the process must be gone long before.
    const alive = async () =>
      (await new Deno.Command("kill", { args: ["-0", String(pid)], stderr: "null" }).output()).success;
    const deadline = Date.now() + 20_000;
    while (await alive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(await alive(), false, "tinyagent ended when its host did");
    await writer.close().catch(() => {});
  } finally {
    await stderrReader.cancel().catch(() => {});
    try {
      host.kill("SIGKILL");
    } catch {
      // already gone
    }
    await host.status;
    await relay.close();
  }
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(`${signal} ends tinyagent promptly, with status 0 and no trace on stderr`, async () => {
    const relay = await startStrictRelay();
    const key = newKey();
    relay.script({ hang: true });
    const child = spawnFacade(relay, key);
    const stderr = new Response(child.stderr).text();
    const stdout = new Response(child.stdout).text();
    const writer = child.stdin.getWriter();
    try {
      await writer.write(line({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }));
      await writer.write(line({ jsonrpc: "2.0", id: 2, method: "tools/list" }));
      await eventually(() => relay.inFlight === 1, "a relay call in flight");
      child.kill(signal);
      const status = await child.status;
      const log = await stderr;
      assert.equal(status.code, 0, log);
      const trace = log.split("\n").filter((l) =>
        l !== "" && !/^tinyagent: mcp: configured for relay /.test(l)
      );
      assert.deepEqual(trace, [], "nothing but the startup line");
      for (const out of (await stdout).trim().split("\n")) assert.equal(JSON.parse(out).jsonrpc, "2.0");
    } finally {
      await writer.close().catch(() => {});
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
      await child.status;
      await relay.close();
    }
  });
}
