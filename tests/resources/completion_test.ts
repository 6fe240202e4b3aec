// Completions for template variables (lib/resources/completion.ts): where each variable's values
// come from (tool, fixed arguments, chosen variables), the candidates read from the real relay's
// list answers, and the ranking: prefix on value, then on label words, then fuzzy; stable;
// at most 100, with total and hasMore.

import assert from "node:assert/strict";
import {
  COMPLETION_SOURCES,
  completionCall,
  completionCandidates,
  MAX_VALUES,
  rankCompletions,
} from "../../lib/resources/completion.ts";
import { KINDS, variablesOf } from "../../lib/resources/kinds.ts";
import {
  ALICE,
  id,
  LIST_ISSUES,
  LIST_JOBS,
  LIST_REPOSITORIES,
  LIST_ROOMS,
  LIST_WIKI,
  OWNER,
  READ_ROOM,
} from "./fixtures.ts";

Deno.test("every variable of every kind has a source", () => {
  for (const spec of KINDS) {
    assert.deepEqual(Object.keys(COMPLETION_SOURCES[spec.kind]).sort(), variablesOf(spec).sort(), spec.kind);
  }
});

Deno.test("the call that lists a variable's values, with the chosen variables it needs", () => {
  const cases: [Parameters<typeof completionCall>, unknown][] = [
    [["room", "id", {}], { tool: "list_rooms", arguments: { limit: 100 } }],
    [["thread", "id", {}], { tool: "list_rooms", arguments: { limit: 100 } }],
    [["thread", "event", { id: "general" }], { tool: "read_room", arguments: { limit: 100, id: "general" } }],
    [["thread", "event", {}], { missing: ["id"] }],
    [["thread", "event", { id: "Not A Room" }], { missing: ["id"] }],
    [["repo", "owner", {}], { tool: "list_repositories", arguments: { limit: 100 } }],
    [["issue", "id", { owner: OWNER, name: "tinyagent" }], {
      tool: "list_issues",
      arguments: { limit: 100, owner: OWNER, repo: "tinyagent" },
    }],
    [["pull", "id", { owner: OWNER }], { missing: ["name"] }],
    [["pull", "id", { owner: "npub1x", name: "t" }], { missing: ["owner"] }],
    [["wiki", "d", {}], { tool: "list_wiki", arguments: { limit: 100 } }],
    [["job", "id", {}], { tool: "list_jobs", arguments: { limit: 100 } }],
    [["file", "sha256", {}], { tool: "list_files", arguments: { limit: 100 } }],
    [["room", "nope", {}], undefined],
  ];
  for (const [args, want] of cases) assert.deepEqual(completionCall(...args), want, JSON.stringify(args));
});

Deno.test("candidates from the relay's answers: values that would parse, with their labels", () => {
  assert.deepEqual(completionCandidates("room", "id", LIST_ROOMS), [
    { value: "general", label: "General" },
    { value: "dev", label: "" },
  ]);
  assert.deepEqual(completionCandidates("thread", "event", READ_ROOM), [{
    value: id("11"),
    label: "Plans for March",
  }]);
  assert.deepEqual(completionCandidates("repo", "owner", LIST_REPOSITORIES).map((c) => c.value), [
    OWNER,
    ALICE,
  ]);
  assert.ok(completionCandidates("repo", "owner", LIST_REPOSITORIES)[0].label?.endsWith("tinyagent"));
  assert.deepEqual(completionCandidates("repo", "name", LIST_REPOSITORIES, { owner: ALICE }), [{
    value: "notes",
  }]);
  assert.deepEqual(completionCandidates("issue", "id", LIST_ISSUES).map((c) => c.label), [
    "Rooms do not list",
    "Wiki pages render twice",
  ]);
  assert.deepEqual(completionCandidates("wiki", "d", LIST_WIKI), [{
    value: "getting-started",
    label: "Getting started",
  }]);
  assert.deepEqual(completionCandidates("job", "id", LIST_JOBS).map((c) => c.label), [
    "Summarise the week",
    "Summarise the week",
  ]);
  // Values that would not parse are never offered: a bad room id, a slash, an uppercase id, too long.
  const hostile = {
    items: [{ id: "Bad Room" }, { id: "a/b" }, { id: 7 }, { id: "ok" }, { id: "x".repeat(65) }],
  };
  assert.deepEqual(completionCandidates("room", "id", hostile).map((c) => c.value), ["ok"]);
  const names = {
    items: [{ owner: OWNER, identifier: "a/b" }, { owner: OWNER, identifier: "y".repeat(3000) }],
  };
  assert.deepEqual(completionCandidates("repo", "name", names), []);
  for (const answer of [undefined, null, "x", {}, { items: "x" }, { items: [null, 1] }]) {
    assert.deepEqual(completionCandidates("room", "id", answer), []);
  }
});

Deno.test("ranking: exact, value prefix, label word prefix, subsequence, small edit distance; stable", () => {
  const candidates = [
    { value: "random", label: "Random things" },
    { value: "general", label: "General chat" },
    { value: "dev", label: "Developers and operations" },
    { value: "gen", label: "Generation" },
    { value: "ops", label: "Operations" },
    { value: "genesis" },
  ];
  const cases: [string, string[]][] = [
    ["", ["random", "general", "dev", "gen", "ops", "genesis"]],
    ["gen", ["gen", "general", "genesis"]],
    ["GEN", ["gen", "general", "genesis"]],
    ["oper", ["dev", "ops"]], // label words only
    ["genral", ["general"]], // a subsequence of general
    ["gnereal", ["general"]], // two transpositions away
    ["dve", ["dev"]],
    ["zzz", []],
  ];
  for (const [typed, want] of cases) {
    const result = rankCompletions(candidates, typed);
    assert.deepEqual(result.values, want, typed);
    assert.equal(result.total, want.length);
    assert.equal(result.hasMore, false);
  }
});

Deno.test("a word of the label outranks letters scattered in a value", () => {
  const candidates = [{ value: "xcxh" }, { value: "general", label: "General chat" }];
  assert.deepEqual(rankCompletions(candidates, "ch").values, ["general", "xcxh"]);
});

Deno.test("at most 100 values, with the total and hasMore; duplicates once; huge input bounded", () => {
  const many = Array.from({ length: 250 }, (_, i) => ({ value: `room-${String(i).padStart(3, "0")}` }));
  const result = rankCompletions([...many, many[0]], "room");
  assert.equal(result.values.length, MAX_VALUES);
  assert.deepEqual(result.values.slice(0, 2), ["room-000", "room-001"]);
  assert.equal(result.total, 250);
  assert.equal(result.hasMore, true);
  const typed = "x".repeat(100_000);
  assert.deepEqual(
    rankCompletions([{ value: "x" }, { value: typed }, { value: "y", label: "x".repeat(1_000_000) }], typed)
      .values,
    [typed],
  );
});
