// The namespace's one table (lib/resources/kinds.ts): each kind's read tool and the arguments its
// variables become, as the real relay's schemas name them, and each variable's rule.

import assert from "node:assert/strict";
import { KINDS, kindSpec, readCall, RULES, variablesOf } from "../../lib/resources/kinds.ts";

const ID = "ab".repeat(32);
const KEY = "cd".repeat(32);

Deno.test("each kind reads through its tool, with the relay's argument names", () => {
  const cases: [Parameters<typeof readCall>[0], string, Record<string, string>][] = [
    [{ kind: "room", values: { id: "general" } }, "read_room", { id: "general" }],
    [{ kind: "thread", values: { id: "general", event: ID } }, "read_thread", { id: "general", event: ID }],
    [{ kind: "repo", values: { owner: KEY, name: "tinyagent" } }, "read_repository", {
      owner: KEY,
      repo: "tinyagent",
    }],
    // read_issue and read_pull_request take the repository and the root's event id (owner, repo, event).
    [{ kind: "issue", values: { owner: KEY, name: "t", id: ID } }, "read_issue", {
      owner: KEY,
      repo: "t",
      event: ID,
    }],
    [
      { kind: "pull", values: { owner: KEY, name: "t", id: ID } },
      "read_pull_request",
      { owner: KEY, repo: "t", event: ID },
    ],
    [{ kind: "wiki", values: { d: "getting-started" } }, "read_wiki_page", { d: "getting-started" }],
    [{ kind: "job", values: { id: ID } }, "read_job", { id: ID }],
    [{ kind: "file", values: { sha256: ID } }, "read_attachment", { sha256: ID }],
  ];
  for (const [address, tool, args] of cases) assert.deepEqual(readCall(address), { tool, arguments: args });
  assert.deepEqual(KINDS.map((spec) => spec.kind), [
    "room",
    "thread",
    "repo",
    "issue",
    "pull",
    "wiki",
    "job",
    "file",
  ]);
});

Deno.test("variables in path order, and every argument names one of them", () => {
  assert.deepEqual(variablesOf(kindSpec("issue")), ["owner", "name", "id"]);
  assert.deepEqual(variablesOf(kindSpec("thread")), ["id", "event"]);
  for (const spec of KINDS) {
    for (const variable of Object.values(spec.args)) {
      assert.ok(variablesOf(spec).includes(variable), spec.kind);
    }
  }
});

Deno.test("rules: room ids, event ids, keys; uppercase and npub answered with the value meant", () => {
  const cases: [keyof typeof RULES, string, boolean, string | undefined][] = [
    ["room", "general", true, undefined],
    ["room", "a".repeat(64), true, undefined],
    ["room", "a".repeat(65), false, undefined],
    ["room", "General", false, "general"],
    ["room", "gen eral", false, undefined],
    ["room", "", false, undefined],
    ["event", ID, true, undefined],
    ["event", ID.toUpperCase(), false, ID],
    ["event", ID.slice(2), false, undefined],
    ["sha256", `${ID.slice(1)}g`, false, undefined],
    ["owner", KEY, true, undefined],
    ["owner", KEY.toUpperCase(), false, KEY],
    [
      "owner",
      "npub180cvv07tjdrrgpa0j7j7tmnyl2yr6yr7l8j4s3evf6u64th6gkwsyjh6w6",
      false,
      "3bf0c63fcb93463407af97a5e5ee64fa883d107ef9e558472c4eb9aaaefa459d",
    ],
    ["name", "any name at all", true, undefined],
    ["page", "Getting Started", true, undefined],
  ];
  for (const [rule, value, ok, suggestion] of cases) {
    const r = RULES[rule] as {
      problem(v: string): string | undefined;
      suggest?(v: string): string | undefined;
    };
    assert.equal(r.problem(value) === undefined, ok, `${rule} ${value}`);
    if (!ok) assert.equal(r.suggest?.(value), suggestion, `${rule} ${value}`);
  }
});
