// tiny_search's answer (lib/code/search.ts): the listing of every function, brief and full
// matches, the note each write tool gets from WRITE_KINDS, the bounds (10 in full, 16 KiB whatever
// the table holds), no match, and the code-mode size target on the strict relay's table.

import assert from "node:assert/strict";
import {
  callable,
  firstSentence,
  MAX_FULL,
  MAX_TEXT_BYTES,
  search,
  tableHashLine,
  writeMark,
  writeNote,
} from "../../lib/code/search.ts";
import { toolsCall } from "../../lib/code/languages.ts";
import { toolSignature } from "../../lib/code/signature.ts";
import { exposedTable } from "../../lib/facade/exposed_table.ts";
import { READ_TOOLS, WRITE_KINDS, WRITE_TOOLS } from "../../lib/facade/tools.ts";
import type { Tool } from "../../lib/wire/mcp.ts";
import { DEFAULT_TOOLS } from "../support/strict_relay/tool_table.ts";

const TABLE = exposedTable(DEFAULT_TOOLS, [...READ_TOOLS, ...WRITE_TOOLS]).value;
const bytes = (text: string) => new TextEncoder().encode(text).length;
const str = (description: string) => ({ type: "string", description });

const READ_ISSUE: Tool = {
  name: "read_issue",
  description: "Read an issue with its replies. Authorized status changes too.",
  inputSchema: { type: "object", properties: { id: str("Issue event id.") }, required: ["id"] },
};
const CREATE_ISSUE: Tool = {
  name: "create_issue",
  title: "Create issue",
  description: "Open a kind 1621 issue on a hosted repository.",
  inputSchema: {
    type: "object",
    properties: {
      repo: str("Repository identifier."),
      title: str("Issue title."),
      event: { type: "object" },
    },
    required: ["repo", "title"],
  },
};
const SMALL = [READ_ISSUE, CREATE_ISSUE];

const UNKNOWN_NOTE = "A result typed `unknown` is not known yet: log the first answer " +
  "(console.log(JSON.stringify(answer).slice(0, 2000))) before you rely on its fields.";
const KEYS_NOTE = 'Writes: pass `{ idempotencyKey: "…" }` (at most 200 characters) as every write\'s ' +
  "second argument: run again with the same key and arguments, it is answered from the write already " +
  "sent, never sent twice.";
const WRITE_ARGS = ", options?: { idempotencyKey?: string }";

Deno.test("an empty or blank query lists every function, one line each, writes marked", () => {
  const expected = {
    text:
      "2 functions a tiny_execute program may call, as `await relay.<name>(args)`; search with words for " +
      "what each does:\n" +
      "relay.read_issue(args: { id: string }): Promise<unknown>\n" +
      "relay.create_issue(args: { repo: string; title: string }): Promise<unknown> [write: kind 1621]\n" +
      `${UNKNOWN_NOTE}\n${KEYS_NOTE}`,
    matches: [
      {
        name: "read_issue",
        signature: "relay.read_issue(args: { id: string }): Promise<unknown>",
        result: "unknown",
        write: false,
      },
      {
        name: "create_issue",
        signature: "relay.create_issue(args: { repo: string; title: string }): Promise<unknown>",
        result: "unknown",
        write: true,
        kinds: [1621],
      },
    ],
    total: 2,
    shown: 2,
  };
  assert.deepEqual(search(SMALL, ""), expected);
  assert.deepEqual(search(SMALL, "  \n\t"), expected);
  assert.deepEqual(search(SMALL, "", { detail: "brief" }), expected);
});

Deno.test("brief for a query: the signature and the description's first sentence, one line a match", () => {
  assert.equal(
    search(SMALL, "issue", { detail: "brief" }).text,
    '2 of the 2 functions match "issue":\n' +
      "relay.read_issue(args: { id: string }): Promise<unknown> — Read an issue with its replies.\n" +
      "relay.create_issue(args: { repo: string; title: string }): Promise<unknown> — Open a kind 1621 issue " +
      "on a hosted repository. [write: kind 1621]\n" +
      `${UNKNOWN_NOTE}\n${KEYS_NOTE}`,
  );
});

Deno.test("full, the default for a query: the commented signature, the whole description, the write's note", () => {
  const found = search(SMALL, "create");
  assert.equal(
    found.text,
    [
      '1 of the 2 functions matches "create":',
      "",
      "relay.create_issue(args: {",
      "  /** Repository identifier. */",
      "  repo: string;",
      "  /** Issue title. */",
      `  title: string;`,
      `}${WRITE_ARGS}): Promise<unknown>`,
      "Open a kind 1621 issue on a hosted repository.",
      writeNote("create_issue"),
      "",
      UNKNOWN_NOTE,
      "",
      KEYS_NOTE,
    ].join("\n"),
  );
  assert.deepEqual(found.matches, [{
    name: "create_issue",
    signature: toolSignature(callable(CREATE_ISSUE), "full", { write: true }),
    result: "unknown",
    write: true,
    kinds: [1621],
  }]);
  assert.equal(
    search(SMALL, "read_issue").text.split("\n\n")[1],
    [
      "relay.read_issue(args: {",
      "  /** Issue event id. */",
      "  id: string;",
      "}): Promise<unknown>",
      "Read an issue with its replies. Authorized status changes too.",
    ].join("\n"),
  );
  // Full asked with a blank query: every function in full.
  assert.match(
    search(SMALL, "", { detail: "full" }).text,
    /^2 functions a tiny_execute program may call, as .*:\n\nrelay\.read_issue\(args: \{\n/,
  );
});

Deno.test("the write note, for each write tool of WRITE_KINDS; none for a read tool", () => {
  for (const name of WRITE_TOOLS) {
    const kinds = WRITE_KINDS[name];
    const note = writeNote(name)!;
    assert.match(note, /^Write: /, name);
    assert.match(
      note,
      /held by the person's settings: asked first when tinyagent runs with --confirm-writes/,
    );
    assert.match(note, /counted against --max-writes, recorded in --audit-log/);
    if (kinds.length === 0) {
      assert.equal(name, "upload_attachment");
      assert.match(note, /stores a file on the relay and publishes nothing, so no event is signed/);
      assert.equal(writeMark(name), " [write: stores a file, publishes nothing]");
    } else {
      const said = kinds.length === 1 ? `kind ${kinds[0]}` : `kind ${kinds.join(" or ")}`;
      assert.ok(
        note.includes(`signs with the agent's key and publishes, signing only ${said} for ${name} `),
        note,
      );
      assert.match(note, /`event` argument is tinyagent's own, so it is left out here/);
      assert.equal(writeMark(name), ` [write: ${said}]`);
    }
  }
  assert.equal(
    writeNote("request_decision")!.includes("signing only kind 9 or 1111 for request_decision"),
    true,
  );
  for (const name of [...READ_TOOLS, "publish_event", "set_status"]) {
    assert.equal(writeNote(name), undefined, name);
    assert.equal(writeMark(name), "", name);
  }
  // Each write tool of the strict relay's table carries its note in full, and its kinds in the structure.
  for (const tool of TABLE.filter((tool) => WRITE_TOOLS.includes(tool.name))) {
    const found = search([tool], tool.name);
    assert.ok(found.text.split("\n\n")[1].endsWith(writeNote(tool.name)!), tool.name);
    assert.deepEqual(found.matches[0].kinds, WRITE_KINDS[tool.name]);
  }
});

const READS_NAMING_AN_EVENT = ["read_thread", "read_issue", "read_pull_request"];

Deno.test("callable: a publishing write loses the relay's event argument; nothing else changes", () => {
  const create = callable(CREATE_ISSUE);
  assert.deepEqual(Object.keys(create.inputSchema.properties as object), ["repo", "title"]);
  assert.deepEqual(create.inputSchema.required, ["repo", "title"]);
  assert.ok(Object.hasOwn(CREATE_ISSUE.inputSchema.properties as object, "event"), "the table is left alone");
  const requiring = callable({
    ...CREATE_ISSUE,
    inputSchema: { ...CREATE_ISSUE.inputSchema, required: ["event"] },
  });
  assert.deepEqual(requiring.inputSchema.required, []);
  // A read's `event` names what it reads (a thread root, an issue, a pull request): kept.
  // upload_attachment signs nothing: kept as is.
  const readThread = TABLE.find((tool) => tool.name === "read_thread")!;
  assert.equal(callable(readThread), readThread);
  const upload = { ...CREATE_ISSUE, name: "upload_attachment" };
  assert.equal(callable(upload), upload);
  for (const tool of TABLE) {
    const properties = Object.keys(callable(tool).inputSchema.properties as object);
    assert.equal(properties.includes("event"), READS_NAMING_AN_EVENT.includes(tool.name), tool.name);
  }
});

Deno.test("firstSentence: up to the first full stop before a space or the end, on one line, cut", () => {
  assert.equal(firstSentence("Read a file. Then more."), "Read a file.");
  assert.equal(firstSentence("A `v1.2` release\nnote! Rest"), "A `v1.2` release note!");
  assert.equal(firstSentence("No stop at all"), "No stop at all");
  assert.equal(firstSentence("x".repeat(300)).length, 200);
});

const tools = (count: number, description: (i: number) => string): Tool[] =>
  Array.from({ length: count }, (_, i) => ({
    name: `widget_${i}`,
    description: description(i),
    inputSchema: { type: "object", properties: { id: str("Widget id.") }, required: ["id"] },
  }));

Deno.test("at most 10 matches in full, the rest counted with how to narrow; brief shows them all", () => {
  const many = tools(25, (i) => `Widget number ${i}.`);
  const full = search(many, "widget");
  assert.equal(full.shown, MAX_FULL);
  assert.equal(full.total, 25);
  assert.equal(full.matches.length, MAX_FULL);
  assert.match(full.text, /^25 of the 25 functions match "widget"; the best 10 first:\n\n/);
  assert.ok(
    full.text.endsWith(
      '15 more match: ask with detail "brief" for every match on one line, or add words (a function\'s ' +
        `name, such as widget_0) to narrow.\n\n${UNKNOWN_NOTE}`,
    ),
    full.text.slice(-200),
  );
  assert.equal(full.text.split("\n\n").length, 1 + MAX_FULL + 2);
  const brief = search(many, "widget", { detail: "brief" });
  assert.equal(brief.shown, 25);
  assert.equal(brief.text.split("\n").length, 27);
  assert.match(search(tools(11, (i) => `Widget ${i}.`), "widget").text, /\n\n1 more matches: ask/);
});

Deno.test("16 KiB at most whatever the table holds, the cut said; the structure names what is shown", () => {
  const huge = tools(1000, (i) => `Widget ${i}. ${"blah ".repeat(400)}`);
  for (const [query, detail] of [["", undefined], ["widget", "brief"], ["widget", "full"]] as const) {
    const found = search(huge, query, { detail });
    assert.ok(bytes(found.text) <= MAX_TEXT_BYTES, `${query} ${detail}: ${bytes(found.text)}`);
    assert.equal(found.total, 1000);
    assert.equal(found.matches.length, found.shown);
    const lastLine = found.text.slice(0, -UNKNOWN_NOTE.length - 1).trimEnd().split("\n").at(-1)!;
    assert.ok(found.text.endsWith(UNKNOWN_NOTE));
    assert.ok(found.shown > 0 && found.shown < (detail === "full" ? MAX_FULL : 1000), String(found.shown));
    assert.match(lastLine, new RegExp(`^\\[cut at 16 KiB: ${found.shown} of 1000 functions shown; `));
    for (const match of found.matches) assert.ok(found.text.includes(match.signature), match.name);
  }
  assert.match(search(huge, "").text, /search with words to narrow\]\nA result typed/);
  assert.match(search(huge, "widget", { detail: "brief" }).text, /narrow the query\]\nA result typed/);
  assert.match(search(huge, "widget").text, /narrow the query, or ask with detail "brief"\]\n\nA result/);
  // One description longer than the bound, in full: cut on a character boundary, with the cut said.
  const long = tools(3, () => `Widget. ${"é".repeat(40_000)}`);
  const found = search(long, "widget");
  assert.ok(bytes(found.text) <= MAX_TEXT_BYTES);
  assert.equal(found.shown, 1);
  assert.equal(found.matches.length, 1);
  assert.match(
    found.text,
    /é…\n\n\[cut at 16 KiB: 1 of 3 functions shown; narrow the query, or ask with detail "brief"\]\n\nA result/,
  );
  assert.ok(!found.text.includes("\uFFFD"));
});

Deno.test("no match: said, with the closest names; an empty table: said", () => {
  assert.deepEqual(search(TABLE, "isseus"), {
    text:
      'No function matches "isseus". The closest names: list_issues, read_issue, create_issue, list_files, ' +
      "read_status. An empty query lists all 35.",
    matches: [],
    total: 0,
    shown: 0,
  });
  const long = search(TABLE, `zz ${"q".repeat(500)}`);
  assert.match(long.text, /^No function matches "zz q{77}"…\. The closest names: /);
  assert.deepEqual(search([], "issues"), {
    text: "No function is exposed to this agent: the relay lists none of the tools that --tools and " +
      "--allow-writes let it call.",
    matches: [],
    total: 0,
    shown: 0,
  });
});

Deno.test("the strict relay's table: 'issues' finds list_issues first; blank lists all 35 under 25% of tools/list", () => {
  const issues = search(TABLE, "issues");
  assert.deepEqual(issues.matches.slice(0, 3).map((match) => match.name), [
    "list_issues",
    "read_issue",
    "create_issue",
  ]);
  assert.match(
    issues.text,
    /\n\nrelay\.list_issues\(args: \{\n {2}\/\*\* Hex public key\. \*\/\n {2}owner: string;/,
  );
  const rooms = search(TABLE, "room messages", { detail: "brief" });
  assert.deepEqual(rooms.matches.slice(0, 2).map((match) => match.name), ["read_room", "post_message"]);
  assert.deepEqual(search(TABLE, "isue").matches.slice(0, 3).map((match) => match.name).sort(), [
    "create_issue",
    "list_issues",
    "read_issue",
  ]);
  const all = search(TABLE, "");
  assert.equal(all.total, 35);
  assert.equal(all.shown, 35);
  assert.deepEqual(all.matches.map((match) => match.name), [...READ_TOOLS, ...WRITE_TOOLS]);
  const listed = bytes(JSON.stringify({ tools: TABLE }));
  const share = bytes(all.text) / listed;
  assert.ok(
    share < 0.25,
    `the listing is ${bytes(all.text)} bytes, ${(share * 100).toFixed(1)}% of ${listed}`,
  );
});

Deno.test("languages and notes: json lines are requests alone; pages and keys said once where they apply", () => {
  const rooms = TABLE.filter((tool) => ["list_rooms", "post_message"].includes(tool.name));
  const json = search(rooms, "", { language: "json" });
  const lines = json.text.split("\n");
  assert.deepEqual(lines.slice(1, 3).map((line) => JSON.parse(line).params.name), [
    "list_rooms",
    "post_message",
  ]);
  assert.deepEqual(
    json.matches.map((match) => match.request),
    rooms.map((tool) => toolsCall(callable(tool))),
  );
  assert.ok(!json.text.includes("Pages:") && !json.text.includes("idempotencyKey"), "no program there");
  const typescript = search(rooms, "", { hash: "0123456789ab" });
  for (const note of ["Pages: an answer with a next_cursor", KEYS_NOTE, UNKNOWN_NOTE]) {
    assert.equal(typescript.text.split(note).length, 2, `once: ${note.slice(0, 30)}`);
  }
  assert.equal(typescript.hash, "0123456789ab");
  assert.ok(typescript.text.endsWith(tableHashLine("0123456789ab")));
  const javascript = search(rooms, "post", { language: "javascript" });
  assert.match(javascript.text, /\n \* @param \{\{ idempotencyKey\?: string \}\} \[options\]/);
  assert.match(javascript.text, /\nrelay\.post_message\(args, options\)\n/);
  const reads = search(rooms.slice(0, 1), "");
  assert.ok(!reads.text.includes("idempotencyKey"), "no write shown, no key note");
});
