// A repository (lib/resources/render_repo.ts) from read_repository's BrowsePage: owner, privacy,
// default branch, clone URLs, relays, maintainers, refs, then the view the relay answered.

import assert from "node:assert/strict";
import { renderRepository } from "../../lib/resources/render_repo.ts";
import { ALICE, CTX, linesOutsideFences, OWNER, READ_REPOSITORY } from "./fixtures.ts";

const NAMED = { ...CTX, names: new Map([[ALICE, "alice"]]) };

Deno.test("the tree view: facts, where its issues and pull requests read, then the files", () => {
  const md = renderRepository(READ_REPOSITORY, OWNER, "tinyagent", NAMED)!;
  const repo = `tiny://relay.example/repo/${OWNER}/tinyagent`;
  assert.deepEqual(linesOutsideFences(md), [
    "# Repository tinyagent",
    "",
    `Owner npub16n2df4x5…wsfn · public · default branch \`main\` · at commit \`${"9f".repeat(20)}\``,
    "",
    "Clone: `https://relay.example/d4d4.git`",
    "",
    "Relays: `wss://relay.example`",
    "",
    "Maintainers: npub16n2df4x5…wsfn, alice (npub15xs6rgdp…7wk8)",
    "",
    "Branches and tags: `main` `9f9f9f9f9f9f`, `v0.1.0` `8e8e8e8e8e8e`",
    "",
    `Its issues read as \`${repo}/issue/{id}\` and its pull requests as \`${repo}/pull/{id}\`.`,
    "",
    "## Files in the top directory",
    "",
    "- `lib/` (directory)",
    "- `README.md` · 4,321 bytes",
    "",
  ]);
});

Deno.test("the other views: a file, its history, a commit's diff, a binary file", () => {
  const file = renderRepository(
    { ...READ_REPOSITORY, view: "file", path: "README.md", entries: null, content: "# Hi\n" },
    OWNER,
    "t",
    CTX,
  )!;
  assert.ok(file.includes("## File `README.md`\n\n```text\n# Hi\n```"));
  const history = renderRepository(
    {
      ...READ_REPOSITORY,
      entries: [],
      commits: [{
        oid: "9f".repeat(20),
        parents: [],
        author: "Alice *A*",
        time: 1767225600,
        subject: "Start\nover",
      }],
      next_offset: 50,
    },
    OWNER,
    "t",
    CTX,
  )!;
  assert.ok(history.includes(`- \`9f9f9f9f9f9f\` · 2026-01-01 00:00:00 UTC · Alice \\*A\\* · Start over`));
  const diff = renderRepository(
    { ...READ_REPOSITORY, entries: [], diff: "+x\n", truncated: true },
    OWNER,
    "t",
    CTX,
  )!;
  assert.ok(diff.includes("## Diff\n\n```diff\n+x\n```\n\n[the relay cut this diff]"));
  const binary = renderRepository(
    { ...READ_REPOSITORY, entries: [], path: "a.png", binary: true },
    OWNER,
    "t",
    CTX,
  )!;
  assert.ok(binary.includes("## File `a.png`\n\nA binary file: its bytes are not shown here."));
  const paged = renderRepository({ ...READ_REPOSITORY, next_offset: 50 }, OWNER, "t", CTX)!;
  assert.ok(paged.includes("[more entries follow from offset 50]"));
});

Deno.test("missing and mistyped fields never throw; an answer naming no repository is not one", () => {
  const md = renderRepository(
    { identifier: "x", clone: "nope", refs: [], entries: [null, { name: 3, type: "tree" }] },
    OWNER,
    "x",
    CTX,
  )!;
  assert.ok(md.startsWith("# Repository x\n\nOwner npub16n2df4x5…wsfn\n"));
  assert.ok(md.includes("- `?/` (directory)"));
  for (const answer of [undefined, null, "repo", [], {}, { identifier: 5 }]) {
    assert.equal(renderRepository(answer, OWNER, "x", CTX), undefined, JSON.stringify(answer));
  }
  const hostile = renderRepository(
    { ...READ_REPOSITORY, identifier: "x\n# y", head: "ref: refs/heads/`m`" },
    OWNER,
    "x",
    CTX,
  )!;
  assert.ok(hostile.startsWith("# Repository x # y\n"));
  assert.ok(hostile.includes("default branch `` `m` ``"));
});
