// Issues and pull requests (lib/resources/render_issue.ts) from the real relay's shapes: title,
// status, labels, author, description; a pull request's commits and diff, cut visibly; replies
// oldest first with their review anchor; status changes; missing fields; hostile text.

import assert from "node:assert/strict";
import { renderIssue } from "../../lib/resources/render_issue.ts";
import {
  ALICE,
  CTX,
  event,
  id,
  ISSUE_ROOT,
  linesOutsideFences,
  OWNER,
  READ_ISSUE,
  READ_PULL,
  T0,
} from "./fixtures.ts";

const NAMED = { ...CTX, names: new Map([[ALICE, "alice"]]) };
const REPO = `tiny://relay.example/repo/${OWNER}/tinyagent`;

Deno.test("an issue: title, status, labels, author, description, replies oldest first, status changes", () => {
  const md = renderIssue(READ_ISSUE, false, OWNER, "tinyagent", NAMED)!;
  const outside = linesOutsideFences(md);
  assert.deepEqual(outside.slice(0, 5), [
    "# Issue: Rooms do not list",
    "",
    "Status **resolved** · labels `bug`, `rooms` · opened by alice (npub15xs6rgdp…7wk8) at 2026-01-01 00:00:00 UTC",
    "",
    `Repository \`${REPO}\``,
  ]);
  assert.ok(md.includes("Description:\n\n```text\nSteps:\n1. open the @ menu\n2. nothing\n```"));
  const replies = outside.filter((line) => line.startsWith("**"));
  assert.deepEqual(replies, [
    "**npub16n2df4x5…wsfn** · 2026-01-01 01:00:00 UTC · reply",
    "**alice (npub15xs6rgdp…7wk8)** · 2026-01-01 02:00:00 UTC · reply",
  ]);
  assert.ok(outside.includes("## Replies (2, oldest first)"));
  assert.ok(outside.includes("- 2026-01-01 01:23:20 UTC · npub16n2df4x5…wsfn · resolved"));
  assert.ok(!md.includes("## Diff") && !md.includes("## Commits"));
  assert.equal(
    renderIssue(
      { ...READ_ISSUE, replies: [...READ_ISSUE.replies].reverse() },
      false,
      OWNER,
      "tinyagent",
      NAMED,
    ),
    md,
  );
});

Deno.test("a pull request: commits (tip, base, clone, updates), the diff, a review reply's file and line", () => {
  const md = renderIssue(READ_PULL, true, OWNER, "tinyagent", NAMED)!;
  const outside = linesOutsideFences(md);
  assert.equal(outside[0], "# Pull request: Add resources");
  assert.ok(outside.includes("Your key may change its status."));
  assert.deepEqual(outside.filter((line) => line.startsWith("- ")), [
    `- opened 2026-01-01 00:00:00 UTC by npub1k2et9v4j…v7lr: tip \`${"ab".repeat(20)}\`, on \`${
      "9f".repeat(20)
    }\`, from \`https://git.example/bob/tinyagent.git\``,
    `- updated 2026-01-01 00:00:50 UTC by npub1k2et9v4j…v7lr: tip \`${"cd".repeat(20)}\`, on \`${
      "9f".repeat(20)
    }\``,
  ]);
  assert.ok(
    md.includes("## Diff\n\n```diff\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n```"),
  );
  assert.ok(outside.includes(
    "**npub16n2df4x5…wsfn** · 2026-01-01 00:01:40 UTC · reply · on `lib/resources/nearest.ts` line 12 (new side)",
  ));
  // 1631 is "merged" for a pull request.
  const merged = renderIssue(
    { ...READ_PULL, statuses: [event({ id: id("44"), pubkey: OWNER, kind: 1631, at: T0 })] },
    true,
    OWNER,
    "tinyagent",
    CTX,
  )!;
  assert.ok(merged.includes("· merged"));
});

Deno.test("a long diff is cut visibly; the relay's own cut and an unavailable diff are said", () => {
  const huge = `diff --git a/big b/big\n${"+line\n".repeat(2_000_000)}`;
  const md = renderIssue({ ...READ_PULL, diff: huge, diff_truncated: true }, true, OWNER, "tinyagent", CTX)!;
  assert.ok(md.length < 100_000, String(md.length));
  assert.ok(/\[cut: [\d,]+ more characters not shown; \?as=json gives the relay's whole answer\]/.test(md));
  assert.ok(md.includes("[the relay cut this diff]"));
  const none = renderIssue(
    { ...READ_PULL, diff: undefined, diff_unavailable: "merge base is unavailable locally" },
    true,
    OWNER,
    "t",
    CTX,
  )!;
  assert.ok(none.includes("## Diff\n\nNo diff: merge base is unavailable locally"));
  assert.ok(renderIssue({ ...READ_PULL, diff: 42 }, true, OWNER, "t", CTX)!.includes("## Diff\n\nNo diff."));
});

Deno.test("proposals from agents are marked with their answer, on the item and on replies", () => {
  // The relay's marks: proposal true, approval pending, approved or rejected, and who answered when.
  const item = { ...READ_ISSUE.item, proposal: true, approval: "pending" };
  const approved = {
    ...READ_ISSUE.replies[0],
    proposal: true,
    approval: "approved",
    approval_event: id("39"),
    approval_at: T0,
    approval_by: ALICE,
  };
  const rejected = { ...READ_ISSUE.replies[1], proposal: true, approval: "rejected" };
  const md = renderIssue(
    { ...READ_ISSUE, item, replies: [approved, rejected] },
    false,
    OWNER,
    "tinyagent",
    NAMED,
  )!;
  assert.ok(md.includes("This is an agent's proposal awaiting a maintainer."));
  assert.ok(
    md.includes("· reply · an agent's proposal, approved by alice (npub15xs6rgdp…7wk8) at 2026-01-01"),
  );
  assert.ok(md.includes("· reply · an agent's proposal, rejected"));
  assert.ok(!md.includes("approved · "), "one answer, said once");
  const plain = renderIssue(READ_ISSUE, false, OWNER, "tinyagent", CTX)!;
  assert.ok(!plain.includes("proposal"), "no marks, no note");
});

Deno.test("missing and mistyped fields never throw; an answer without item or root is not an issue", () => {
  const cases: [unknown, string][] = [
    [{ item: {} }, "# Issue: (untitled)"],
    [{ item: { title: 5, labels: "bug", status: null } }, "Status **unknown**"],
    [{ root: ISSUE_ROOT }, "# Issue: Rooms do not list"],
    [
      { item: { title: "t" }, replies: [null, { content: 3 }], statuses: "x" },
      "**an unknown author** · an unknown time · reply",
    ],
    [{ item: { title: "t", content: "" } }, "Description:\n\n(none)"],
  ];
  for (const [answer, words] of cases) {
    const md = renderIssue(answer, false, OWNER, "tinyagent", CTX);
    assert.ok(md?.includes(words), `${JSON.stringify(answer)}: ${md}`);
  }
  for (const answer of [undefined, null, [], {}, { item: "x", root: 3 }]) {
    assert.equal(renderIssue(answer, false, OWNER, "tinyagent", CTX), undefined);
  }
});

Deno.test("hostile titles, labels and bodies: one line each, escaped, bodies fenced", () => {
  const item = {
    ...READ_ISSUE.item,
    title: "Fix\n# Owned\u202e",
    labels: ["`x`", "bug\nfake"],
    content: "**alice** · now · reply\n```\n<img src=x>",
  };
  const md = renderIssue({ ...READ_ISSUE, item }, false, OWNER, "tinyagent", CTX)!;
  const outside = linesOutsideFences(md);
  assert.equal(outside[0], "# Issue: Fix # Owned\\\\u202e");
  assert.ok(outside[2].includes("labels `` `x` ``, `bug fake`"));
  assert.ok(!outside.join("\n").includes("<img"));
  assert.equal(outside.filter((line) => line.startsWith("**")).length, 2);
});
