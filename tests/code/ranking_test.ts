// How tiny_search ranks the relay's tools for a query (lib/code/ranking.ts): the word matches
// (exact, plural, prefix, small typo), the field boosts, the ranking cases on the strict relay's
// table, the closest names when nothing matches, and a table far larger than any relay's.

import assert from "node:assert/strict";
import { closestNames, editDistance, queryTerms, ranked, wordMatch, words } from "../../lib/code/ranking.ts";
import { exposedTable } from "../../lib/facade/exposed_table.ts";
import { READ_TOOLS, WRITE_TOOLS } from "../../lib/facade/tools.ts";
import type { Tool } from "../../lib/wire/mcp.ts";
import { DEFAULT_TOOLS } from "../support/strict_relay/tool_table.ts";

/** The strict relay's table as tinyagent exposes it with --allow-writes: the curated read and write tools. */
const TABLE = exposedTable(DEFAULT_TOOLS, [...READ_TOOLS, ...WRITE_TOOLS]).value;
const names = (query: string, table: readonly Tool[] = TABLE) =>
  ranked(table, query).map((tool) => tool.name);

Deno.test("editDistance: the distance, to a prefix when asked, cut at the bound", () => {
  const cases: [string, string, number, boolean, number][] = [
    ["issue", "issue", 1, false, 0],
    ["isue", "issue", 1, false, 1],
    ["isue", "issues", 1, false, 2],
    ["isue", "issues", 1, true, 1],
    ["kitten", "sitting", 3, false, 3],
    ["abc", "xyz", 1, false, 2],
    ["abc", "abcdefgh", 1, false, 2],
    ["", "abc", 5, false, 3],
    ["atach", "attachment", 1, true, 1],
  ];
  for (const [a, b, most, prefix, expected] of cases) {
    assert.equal(editDistance(a, b, most, prefix), expected, `${a} ${b} ${most} ${prefix}`);
  }
});

Deno.test("wordMatch: exact over plural over prefix over typo over a prefix's typo", () => {
  const cases: [string, string, number][] = [
    ["issues", "issues", 1],
    ["issues", "issue", 0.9],
    ["messages", "message", 0.9],
    ["replies", "reply", 0.9],
    ["iss", "issues", 0.7],
    ["isu", "issue", 0], // three letters: no typo allowed
    ["is", "issue", 0], // two letters: not even a prefix
    ["isue", "issue", 0.45],
    ["isue", "issues", 0.45],
    ["atach", "attachment", 0.35],
    ["repositry", "repositories", 0.45],
    ["room", "roam", 0.45],
    ["room", "read", 0],
  ];
  for (const [term, word, expected] of cases) {
    assert.equal(wordMatch(term, word), expected, `${term} ${word}`);
  }
});

Deno.test("words and queryTerms: lower case, split on anything not a letter or digit, bounded", () => {
  assert.deepEqual(words("List a repository's ISSUES, by `id`"), [
    "list",
    "a",
    "repository",
    "s",
    "issues",
    "by",
    "id",
  ]);
  assert.deepEqual(words("read_issue"), ["read", "issue"]);
  assert.deepEqual(words("Ünïcode wörds"), ["ünïcode", "wörds"]);
  assert.equal(words("w ".repeat(10_000)).length, 200);
  assert.equal(words("x".repeat(100))[0].length, 40);
  assert.deepEqual(queryTerms("how to list the issues of a repo"), ["how", "list", "issues", "repo"]);
  assert.deepEqual(queryTerms("the of"), ["the", "of"]);
  assert.deepEqual(queryTerms("room room ROOM"), ["room"]);
  assert.equal(queryTerms("a b c d e f g h i j k").length, 8);
  assert.deepEqual(queryTerms("  !!! "), []);
});

Deno.test("ranked: the strict relay's table, query by query", () => {
  const cases: [string, string[]][] = [
    ["issues", ["list_issues", "read_issue", "create_issue"]],
    ["ISSUES", ["list_issues", "read_issue", "create_issue"]],
    ["room messages", ["read_room", "post_message"]],
    ["list issues", ["list_issues"]],
    ["post_message", ["post_message"]],
    ["upload", ["upload_attachment"]],
    ["job progress", ["job_progress"]],
    ["grant", ["request_grant"]],
    ["react", ["react"]],
    ["thread", ["read_thread", "start_thread", "reply_in_thread"]],
  ];
  for (const [query, first] of cases) {
    assert.deepEqual(names(query).slice(0, first.length), first, query);
  }
  assert.deepEqual(names("pull").slice(0, 3).sort(), [
    "create_pull_request",
    "list_pull_requests",
    "read_pull_request",
  ]);
  // A misspelling still finds the three issue tools, first.
  assert.deepEqual(names("isue").slice(0, 3).sort(), ["create_issue", "list_issues", "read_issue"]);
  assert.deepEqual(names("mesage").slice(0, 1), ["post_message"]);
  // A parameter alone is enough to match: read_attachment's sha256 (read_file's is hash, its
  // description's "SHA-256" two other words).
  assert.deepEqual(names("sha256"), ["read_attachment"]);
  // A tool that meets the query only in passing (under a fifth of the best) is left out: start_thread
  // matches "post message" on its own, but far below post_message; those naming a room message stay.
  assert.deepEqual(names("post message"), [
    "post_message",
    "upload_attachment",
    "react",
    "request_decision",
    "job_error",
  ]);
  assert.deepEqual(names("post message", TABLE.filter((tool) => tool.name === "start_thread")), [
    "start_thread",
  ]);
  // Nothing to match.
  assert.deepEqual(names("xyzzy"), []);
  assert.deepEqual(names(""), []);
  assert.deepEqual(names("!!!"), []);
});

const synthetic = (name: string, fields: Partial<Tool> = {}): Tool => ({
  name,
  inputSchema: { type: "object" },
  ...fields,
});

Deno.test("ranked: name over title over description over parameters; ties in table order", () => {
  const table = [
    synthetic("in_parameters", {
      inputSchema: { type: "object", properties: { gadget: { type: "string" } } },
    }),
    synthetic("in_description", { description: "A gadget." }),
    synthetic("in_title", { title: "Gadget" }),
    synthetic("gadget_in_name"),
    synthetic("no_match", { description: "Nothing here." }),
  ];
  assert.deepEqual(names("gadget", table), ["gadget_in_name", "in_title", "in_description", "in_parameters"]);
  // A query that is a function's name puts that function first, whatever the others score.
  const named = [synthetic("list_all", { title: "List", description: "List, list." }), synthetic("list")];
  assert.deepEqual(names("list", named), ["list", "list_all"]);
  assert.deepEqual(names("list all", named), ["list_all", "list"]);
  const tied = [synthetic("b_widget"), synthetic("a_widget")];
  assert.deepEqual(names("widget", tied), ["b_widget", "a_widget"]);
  // A parameter described with the word counts as well as one named by it.
  const described = [
    synthetic("p", { inputSchema: { type: "object", properties: { x: { description: "The gadget." } } } }),
  ];
  assert.deepEqual(names("gadget", described), ["p"]);
  // One term of two met counts half: the tool meeting both comes first.
  const both = [synthetic("red_box"), synthetic("red_ball"), synthetic("blue_box")];
  assert.deepEqual(names("blue box", both)[0], "blue_box");
});

Deno.test("closestNames: the names nearest the query's words, five at most", () => {
  assert.deepEqual(closestNames(TABLE, "zzzz").length, 5);
  assert.deepEqual(closestNames(TABLE, "isseus").slice(0, 2), ["list_issues", "read_issue"]);
  assert.deepEqual(closestNames(TABLE, "rom").slice(0, 2), ["read_room", "list_rooms"]);
  assert.deepEqual(names("wiki").slice(0, 4).sort(), [
    "list_wiki",
    "propose_wiki_merge",
    "publish_wiki_page",
    "read_wiki_page",
  ]);
  // Then those whose descriptions name it: react answers a wiki merge request, a grant has wiki terms.
  assert.deepEqual(names("wiki").slice(4), ["react", "request_grant"]);
  assert.deepEqual(closestNames(TABLE, "!!!"), TABLE.slice(0, 5).map((tool) => tool.name));
  assert.deepEqual(closestNames([], "x"), []);
});

Deno.test("a table far larger than any relay's: ranked, bounded, the right tool first", () => {
  const noise = Array.from({ length: 1000 }, (_, i) =>
    synthetic(`tool_${i}`, {
      title: `Tool ${i}`,
      description: Array.from({ length: 2000 }, (_, j) => `w${(i * 7 + j) % 997}`).join(" "),
      inputSchema: {
        type: "object",
        properties: Object.fromEntries(
          Array.from({ length: 500 }, (_, j) => [`p${j}`, { description: `d${j}` }]),
        ),
      },
    }));
  const table = [...noise, synthetic("find_needle", { description: "Finds the needle." })];
  assert.equal(names("needle", table)[0], "find_needle");
  assert.equal(names("q".repeat(100_000), table).length, 0);
});
