// The repository write tools' builders and checks (mcp_tools.go; collaboration_review.go's review
// anchors): each refusal in tinyrelay's words and order, and the tags of each template.

import assert from "node:assert/strict";
import type { NostrEvent } from "nostr-tools/pure";
import { REPO_WRITES, reviewAnchorProblem } from "./write_repo.ts";
import type { BuildContext } from "./write_kit.ts";

const NOW = 1_800_000_000;
const OWNER = "a1".repeat(32);
const AUTHOR = "b2".repeat(32);
const ROOT = "c3".repeat(32);
const PARENT = "d4".repeat(32);
const COMMIT = "e5".repeat(20);
const A = ["a", `30617:${OWNER}:tools`];

const ctx: BuildContext = { actor: AUTHOR, now: NOW, event: () => undefined, activeGrant: () => undefined };
const repo = { owner: OWNER, repo: "tools" };

function built(tool: string, args: Record<string, unknown>) {
  const out = REPO_WRITES[tool].build!(args, ctx);
  return "error" in out ? out.error : out.unsigned;
}

const ev = (kind: number, tags: string[][], content = "x"): NostrEvent => ({
  id: "0".repeat(64),
  pubkey: AUTHOR,
  created_at: NOW,
  kind,
  tags,
  content,
  sig: "",
});
const check = (tool: string, event: NostrEvent) => REPO_WRITES[tool].check!(event, NOW);

Deno.test("create_issue: owner and repo, a title and content; labels as t tags, trimmed, each once", () => {
  assert.equal(
    built("create_issue", { repo: "tools", title: "t", content: "c" }),
    "owner and repo are required",
  );
  assert.equal(
    built("create_issue", { ...repo, title: " ", content: "c" }),
    "title and content are required",
  );
  assert.equal(
    built("create_issue", { ...repo, title: "t", content: " " }),
    "title and content are required",
  );
  assert.deepEqual(
    built("create_issue", {
      ...repo,
      title: " Bug ",
      content: "broken",
      labels: [" bug ", "", "bug", "ui", 5],
    }),
    {
      kind: 1621,
      created_at: NOW,
      tags: [A, ["p", OWNER], ["subject", "Bug"], ["t", "bug"], ["t", "ui"]],
      content: "broken",
    },
  );
});

Deno.test("create_pull_request: title, commit and clone, an http(s) clone URL; merge-base when given", () => {
  const pr = { ...repo, title: "Fix", commit: COMMIT, clone: "https://git.test/tools.git" };
  assert.equal(built("create_pull_request", { ...pr, clone: "" }), "title, commit and clone are required");
  for (
    const clone of ["ssh://git.test/x", "https://user:pw@git.test/x", "https://git.test/x#frag", "not a url"]
  ) {
    assert.equal(
      built("create_pull_request", { ...pr, clone }),
      "clone must be an HTTP or HTTPS URL without credentials",
      clone,
    );
  }
  assert.deepEqual(built("create_pull_request", { ...pr, merge_base: COMMIT, labels: ["fix"] }), {
    kind: 1618,
    created_at: NOW,
    tags: [A, ["p", OWNER], ["subject", "Fix"], ["c", COMMIT], ["clone", "https://git.test/tools.git"], [
      "merge-base",
      COMMIT,
    ], ["t", "fix"]],
    content: "",
  });
});

Deno.test("comment: the root, a parent that is the root unless given, and a review anchor on a diff", () => {
  const top = { ...repo, root: ROOT, root_kind: 1618, root_pubkey: AUTHOR, content: "nice" };
  assert.equal(
    built("comment", { ...top, root_kind: undefined }),
    "root, root_kind, root_pubkey and content are required",
  );
  assert.equal(
    built("comment", { ...top, content: " " }),
    "root, root_kind, root_pubkey and content are required",
  );
  assert.equal(built("comment", { ...top, parent: PARENT }), "parent needs parent_kind and parent_pubkey");
  assert.deepEqual(built("comment", top), {
    kind: 1111,
    created_at: NOW,
    tags: [A, ["E", ROOT, "", AUTHOR], ["K", "1618"], ["P", AUTHOR], ["e", ROOT, "", AUTHOR], ["k", "1618"], [
      "p",
      AUTHOR,
    ]],
    content: "nice",
  });
  const reply = built("comment", { ...top, parent: PARENT, parent_kind: 1111, parent_pubkey: OWNER }) as {
    tags: string[][];
  };
  assert.deepEqual(reply.tags.slice(4), [["e", PARENT, "", OWNER], ["k", "1111"], ["p", OWNER]]);

  const anchored = built("comment", { ...top, file: "src/a.ts", line: 12, side: "new" }) as {
    tags: string[][];
  };
  assert.deepEqual(anchored.tags.slice(-2), [["file", "src/a.ts"], ["line", "12", "new"]]);
  const together = "file, line (a positive integer) and side (old or new) go together";
  assert.equal(built("comment", { ...top, file: "src/a.ts" }), together);
  assert.equal(built("comment", { ...top, line: 3, side: "old" }), together);
  assert.equal(built("comment", { ...top, file: " ", line: 3, side: "old" }), together);
  assert.equal(
    built("comment", { ...top, root_kind: 1621, file: "a", line: 1, side: "old" }),
    "file and line anchor a comment to a pull request or patch diff",
  );
  assert.equal(
    (built("comment", { ...top, root_kind: 1617, file: "a", line: 1, side: "old" }) as { kind: number }).kind,
    1111,
  );
});

Deno.test("set_status: its kind from the status; p tags for the root's author, then the owner when another", () => {
  const args = { ...repo, root: ROOT, root_pubkey: AUTHOR };
  assert.equal(built("set_status", { ...args, status: "done" }), "root, root_pubkey and status are required");
  assert.equal(
    built("set_status", { ...repo, root: ROOT, status: "open" }),
    "root, root_pubkey and status are required",
  );
  const kinds = ["open", "resolved", "merged", "closed", "draft"].map((status) =>
    (built("set_status", { ...args, status }) as { kind: number }).kind
  );
  assert.deepEqual(kinds, [1630, 1631, 1631, 1632, 1633]);
  assert.deepEqual(built("set_status", { ...args, status: "closed" }), {
    kind: 1632,
    created_at: NOW,
    tags: [A, ["e", ROOT, "", "root"], ["p", AUTHOR], ["p", OWNER]],
    content: "",
  });
  const own = built("set_status", { ...args, root_pubkey: OWNER, status: "open" }) as { tags: string[][] };
  assert.deepEqual(own.tags, [A, ["e", ROOT, "", "root"], ["p", OWNER]]);
});

Deno.test("repository writes: each check of a signed event, in order", () => {
  const issue = [A, ["p", OWNER], ["subject", "Bug"]];
  const pull = [...issue, ["c", COMMIT], ["clone", "https://git.test/tools.git"]];
  const comment = [A, ["E", ROOT], ["K", "1621"], ["P", AUTHOR], ["e", ROOT], ["k", "1621"], ["p", AUTHOR]];
  const cases: [string, NostrEvent, string | undefined][] = [
    ["create_issue", ev(1621, issue), undefined],
    ["create_issue", ev(1618, issue), "kind 1618 is not an issue"],
    [
      "create_issue",
      ev(1621, [["a", "30617:nothex:tools"]]),
      "the a tag must name the repository as 30617:<owner>:<repo>",
    ],
    [
      "create_issue",
      ev(1621, [A, ["p", AUTHOR], ["subject", "Bug"]]),
      "a p tag must name the repository owner",
    ],
    [
      "create_issue",
      ev(1621, [A, ["p", AUTHOR], ["p", OWNER], ["subject", " "]]),
      "the subject tag carries the title and must not be empty",
    ],
    ["create_issue", ev(1621, issue, " "), "content must not be empty"],
    ["create_pull_request", ev(1618, pull, " "), undefined],
    [
      "create_pull_request",
      ev(1618, [...issue, ["c", "abc"], ["clone", "https://git.test/x"]]),
      "the c tag (and merge-base, when present) must be a full 40-hex commit ID",
    ],
    [
      "create_pull_request",
      ev(1618, [...pull, ["merge-base", "abc"]]),
      "the c tag (and merge-base, when present) must be a full 40-hex commit ID",
    ],
    [
      "create_pull_request",
      ev(1618, [...issue, ["c", COMMIT], ["clone", "git://x"]]),
      "clone must be an HTTP or HTTPS URL without credentials",
    ],
    ["comment", ev(1111, comment), undefined],
    [
      "comment",
      ev(1111, [A, ["E", ROOT], ["K", "1"], ["P", AUTHOR]]),
      "the E, K and P tags must name the root event, its kind (1617, 1618 or 1621) and its author",
    ],
    [
      "comment",
      ev(1111, [...comment.slice(0, 4), ["e", ROOT], ["k", "7"], ["p", AUTHOR]]),
      "the e, k and p tags must name the parent event, its kind and its author",
    ],
    ["comment", ev(1111, comment, " "), "content must not be empty"],
    [
      "comment",
      ev(1111, [...comment, ["file", "a.ts"], ["line", "1", "new"]]),
      "a review comment anchors to a pull request or patch",
    ],
    ["comment", ev(7, comment), "kind 7 is not a comment"],
    ["set_status", ev(1631, [A, ["e", ROOT], ["p", AUTHOR]], ""), undefined],
    ["set_status", ev(1634, [A, ["e", ROOT], ["p", AUTHOR]], ""), "kind 1634 is not a status"],
    [
      "set_status",
      ev(1630, [A, ["e", ROOT]], ""),
      "the e and p tags must name the issue or pull request and its author",
    ],
  ];
  for (const [tool, event, want] of cases) assert.equal(check(tool, event), want, `${tool}: ${want}`);
});

Deno.test("a review comment's anchor: one file tag, one line tag with a number and a side, on a diff", () => {
  const on = (tags: string[][], kind = "1618") => ev(1111, [["K", kind], ...tags]);
  const cases: [NostrEvent, string | undefined][] = [
    [on([]), undefined],
    [on([["file", "a.ts"], ["line", "3", "old"]]), undefined],
    [on([["file", "a.ts"], ["line", "3", "old"]], "1617"), undefined],
    [on([["file", "a.ts"]]), "a review comment carries one file tag and one line tag"],
    [
      on([["file", "a.ts"], ["file", "b.ts"], ["line", "3", "old"]]),
      "a review comment carries one file tag and one line tag",
    ],
    [on([["file", " "], ["line", "3", "old"]]), "a review comment file tag needs a path"],
    [on([["file", "a\nb"], ["line", "3", "old"]]), "a review comment file tag needs a path"],
    [
      on([["file", "a.ts"], ["line", "3"]]),
      "a review comment line tag needs a line number and a side, old or new",
    ],
    [on([["file", "a.ts"], ["line", "0", "old"]]), "a review comment line must be a positive integer"],
    [on([["file", "a.ts"], ["line", "03", "old"]]), "a review comment line must be a positive integer"],
    [on([["file", "a.ts"], ["line", "3", "both"]]), "a review comment side must be old or new"],
    [
      on([["file", "a.ts"], ["line", "3", "new"]], "1621"),
      "a review comment anchors to a pull request or patch",
    ],
  ];
  for (const [event, want] of cases) {
    assert.equal(reviewAnchorProblem(event), want, JSON.stringify(event.tags));
  }
  assert.equal(reviewAnchorProblem(ev(1621, [["file", "a"]])), undefined, "only comments carry anchors");
});
