// Content mode's repositories: issues and pull requests from seeded events, with their filters,
// paging, statuses, replies and refusals; an issue created later; list_repositories; and
// read_repository, whose blob and tree ids are checked against Git itself.

import assert from "node:assert/strict";
import { finalizeEvent } from "nostr-tools/pure";
import { issuesContent } from "./mod.ts";
import { withRelay } from "./nostr_test_kit.ts";
import {
  AGENT,
  everyPage,
  publishWith,
  read,
  readerRefuses,
  refused,
  refusedArguments,
} from "./content_test_kit.ts";

const OWNER = AGENT.pk;
const content = issuesContent(OWNER, "tools", 20);
const ids = (items: Record<string, unknown>[]) => items.map((i) => i.id);

Deno.test("content repo: list_issues pages newest first and filters by state, label and q", async () => {
  await withRelay({}, async (relay) => {
    relay.seed(content.seed);
    const args = { owner: OWNER, repo: "tools" };
    const all = await read(relay, "list_issues", args);
    assert.deepEqual(Object.keys(all), ["items", "next_cursor", "repository"]);
    assert.deepEqual(ids(all.items), content.issues.map((i) => i.event.id));
    assert.equal(all.next_cursor, "");
    const first = content.issues[0];
    assert.deepEqual(all.items[0], {
      id: first.event.id,
      kind: 1621,
      author: first.event.pubkey,
      created_at: first.event.created_at,
      title: first.title,
      content: first.event.content,
      labels: first.labels,
      status: first.status,
    });
    assert.deepEqual(Object.keys(all.repository), [
      "clone",
      "head",
      "maintainers",
      "owner",
      "private",
      "refs",
    ]);
    assert.deepEqual(all.repository.maintainers, [
      { pubkey: OWNER, role: "owner" },
      ...content.maintainers.map((k) => ({ pubkey: k.pk, role: "maintainer" })),
    ]);
    const paged = await everyPage(relay, "list_issues", { ...args, limit: 7 });
    assert.deepEqual(paged.pages, [7, 7, 6]);
    assert.deepEqual(ids(paged.items), ids(all.items), "each once through the cursor");
    const bugs = content.issues.filter((i) => i.labels.includes("bug"));
    assert.ok(bugs.length > 0 && bugs.length < 20);
    assert.deepEqual(
      ids((await read(relay, "list_issues", { ...args, label: "BUG" })).items),
      bugs.map((i) => i.event.id),
    );
    for (const state of ["open", "closed", "resolved"]) {
      const want = content.issues.filter((i) => i.status === state).map((i) => i.event.id);
      assert.deepEqual(ids((await read(relay, "list_issues", { ...args, state })).items), want, state);
    }
    const q = await read(relay, "list_issues", { ...args, q: "ISSUE 3:" });
    assert.deepEqual(ids(q.items), [content.issues.find((i) => i.title.startsWith("Issue 3:"))!.event.id]);
  });
});

Deno.test("content repo: read_issue gives replies newest first, the newest author, the status", async () => {
  await withRelay({}, async (relay) => {
    relay.seed(content.seed);
    for (const issue of content.issues.slice(0, 8)) {
      const page = await read(relay, "read_issue", { owner: OWNER, repo: "tools", event: issue.event.id });
      assert.deepEqual(page.root, issue.event);
      assert.equal(page.item.status, issue.status);
      assert.deepEqual(page.replies, [...issue.replies].reverse());
      assert.equal(page.replies[0]?.pubkey, issue.newestReplyAuthor);
      assert.equal(page.updates, null, "an issue has no updates");
      assert.equal(page.statuses.length, issue.status === "open" ? 0 : 1);
      assert.equal(page.can_status, true, "the caller owns the repository");
    }
    const other = { owner: OWNER, repo: "other", event: content.issues[0].event.id };
    await refused(relay, "read_issue", other, "file does not exist");
  });
});

Deno.test("content repo: pull requests, with the merged status and the seeded diff", async () => {
  await withRelay({}, async (relay) => {
    relay.seed(content.seed);
    const list = await read(relay, "list_pull_requests", { owner: OWNER, repo: "tools" });
    assert.deepEqual(ids(list.items), content.pulls.map((p) => p.event.id));
    assert.deepEqual(list.items.map((p: { status: string }) => p.status), content.pulls.map((p) => p.status));
    const merged = content.pulls.find((p) => p.status === "merged")!;
    const page = await read(relay, "read_pull_request", {
      owner: OWNER,
      repo: "tools",
      event: merged.event.id,
    });
    assert.equal(page.item.status, "merged");
    assert.deepEqual(page.updates, []);
    assert.match(page.diff, /^--- a\/file/);
  });
});

Deno.test("content repo: the relay's refusals for issues", async () => {
  await withRelay({}, async (relay) => {
    relay.seed(content.seed);
    const args = { owner: OWNER, repo: "tools" };
    await refused(relay, "list_issues", { owner: OWNER, repo: "nope" }, "file does not exist");
    const shut = { ...args, state: "shut" };
    await refusedArguments(
      relay,
      "list_issues",
      shut,
      "state must be one of open, resolved, merged, closed, draft",
    );
    readerRefuses(content.seed, "list_issues", shut, "invalid: issue or pull request status");
    await refusedArguments(
      relay,
      "list_issues",
      { ...args, status: "open" },
      "status is not a known argument",
    );
    await refused(relay, "list_issues", { ...args, cursor: "x" }, "invalid: collaboration cursor");
    const abc = { ...args, event: "abc" };
    await refusedArguments(relay, "read_issue", abc, "event does not match ^[0-9a-f]{64}$");
    readerRefuses(content.seed, "read_issue", abc, "invalid: collaboration event");
    await refused(
      relay,
      "read_issue",
      { owner: OWNER, repo: "nope", event: "0".repeat(64) },
      "file does not exist",
    );
    await refused(relay, "read_issue", { ...args, event: "0".repeat(64) }, "not found: collaboration event");
    // The schema asks for owner, repo and event, as the real relay's does, before any other problem.
    const missing = [["owner", { event: "0".repeat(64) }], ["event", { ...args, id: "x" }]] as const;
    for (const [name, given] of missing) {
      await refusedArguments(relay, "read_issue", given, `${name} is required`);
    }
    await refused(
      relay,
      "read_pull_request",
      { ...args, event: content.issues[0].event.id },
      "not found: collaboration event",
    );
  });
});

Deno.test("content repo: an issue created after seeding is listed first", async () => {
  await withRelay({}, async (relay) => {
    relay.seed(issuesContent(OWNER, "tools", 3, { since: 1_600_000_000 }).seed);
    // The default grant names no repository: the operator lets this agent propose in this one.
    relay.setGrant(AGENT.pk, { rooms: [], kinds: [1621], repos: { [`${OWNER}:tools`]: "propose" } });
    const created = await publishWith(
      relay,
      "create_issue",
      { owner: OWNER, repo: "tools", title: "Found later", content: "It broke.", labels: ["bug"] },
      (unsigned) => finalizeEvent(unsigned, AGENT.sk),
    );
    const list = await read(relay, "list_issues", { owner: OWNER, repo: "tools", label: "bug" });
    assert.equal(list.items[0].id, created.id);
    assert.equal(list.items[0].title, "Found later");
  });
});

/** Runs git in `dir` and gives its output, trimmed. */
async function git(dir: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args, cwd: dir, env: { GIT_CONFIG_NOSYSTEM: "1" } }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}

Deno.test("content repo: list_repositories and read_repository, with Git's own ids", async () => {
  await withRelay({}, async (relay) => {
    relay.seed(content.seed);
    const repos = await read(relay, "list_repositories");
    assert.deepEqual(repos.items.map((r: { identifier: string }) => r.identifier), ["tools"]);
    assert.equal((await read(relay, "list_repositories", { q: "zzz" })).items.length, 0);
    const args = { owner: OWNER, repo: "tools" };
    const tree = await read(relay, "read_repository", args);
    assert.deepEqual(tree.entries.map((e: { path: string }) => e.path), ["README.md", "src.md", "src"]);
    assert.equal(tree.commit, content.repository.commits![0].oid);
    const dir = await Deno.makeTempDir();
    try {
      await git(dir, "init", "-q");
      for (const [path, text] of Object.entries(content.repository.files!)) {
        await Deno.mkdir(`${dir}/${path}`.replace(/\/[^/]*$/, ""), { recursive: true });
        await Deno.writeTextFile(`${dir}/${path}`, text);
      }
      await git(dir, "add", ".");
      const lsTree = await git(dir, "ls-tree", await git(dir, "write-tree"));
      const rows = tree.entries.map((e: Record<string, string>) => `${e.mode} ${e.type} ${e.oid}\t${e.name}`);
      assert.deepEqual(rows, lsTree.split("\n"), "modes, types, ids and order as git ls-tree");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
    const src = await read(relay, "read_repository", { ...args, path: "src" });
    assert.deepEqual(src.entries.map((e: { path: string }) => e.path), [
      "src/parse.ts",
      "src/retry.ts",
      "src/util",
    ]);
    const file = await read(relay, "read_repository", { ...args, view: "file", path: "README.md" });
    assert.equal(file.content, content.repository.files!["README.md"]);
    const history = await read(relay, "read_repository", { ...args, view: "history", path: "src/parse.ts" });
    assert.deepEqual(history.commits.map((c: { subject: string }) => c.subject), ["Add the parser"]);
    await refused(
      relay,
      "read_repository",
      { ...args, view: "file", path: "nope.md" },
      "file does not exist",
    );
    await refused(relay, "read_repository", { ...args, ref: "nope" }, "not found: published ref");
    const blame = { ...args, view: "blame" };
    await refusedArguments(
      relay,
      "read_repository",
      blame,
      "view must be one of tree, file, history, commit, activity",
    );
    readerRefuses(content.seed, "read_repository", blame, "invalid: unknown repository view");
    await refused(relay, "read_repository", { ...args, path: "../x" }, "invalid: repository path or offset");
  });
});
