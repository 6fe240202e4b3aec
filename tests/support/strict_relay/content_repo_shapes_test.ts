// Content mode's repository answers in the real relay's shapes (tinyrelay's gitrelay.BrowsePage and
// collaborationDetail): the page's fields in Go's order, maintainers as objects, null for an empty
// list, paging 50 by default and at most 100, the commit view's next_offset, the activity view's
// events, and the diffs cut where the relay cuts them.

import assert from "node:assert/strict";
import type { NostrEvent } from "nostr-tools/pure";
import { issuesContent } from "./mod.ts";
import type { RepositorySeed } from "./content_types.ts";
import { newKey, signed, withRelay } from "./nostr_test_kit.ts";
import { AGENT, read, viewOf } from "./content_test_kit.ts";
import { readIssue } from "./content_issues.ts";
import { readRepository } from "./content_tree.ts";

const OWNER = AGENT.pk;
const AT = 1_700_000_000;
const oid = (n: number) => n.toString(16).padStart(40, "0");

/** A repository of `files` at the root and one commit per diff (newest first). */
function repository(identifier: string, files: number, diffs: string[]): RepositorySeed {
  return {
    owner: OWNER,
    identifier,
    files: Object.fromEntries(
      Array.from({ length: files }, (_, i) => [`f${String(i).padStart(3, "0")}`, "x"]),
    ),
    commits: diffs.map((diff, i) => ({
      oid: oid(diffs.length - i),
      author: "A",
      time: AT - i,
      subject: `commit ${i}`,
      paths: ["f000"],
      diff,
    })),
  };
}

Deno.test("content shapes: read_repository's page in Go's field order, its maintainers objects", async () => {
  const content = issuesContent(OWNER, "tools", 2);
  await withRelay({}, async (relay) => {
    relay.seed(content.seed);
    const args = { owner: OWNER, repo: "tools" };
    const tree = await read(relay, "read_repository", args);
    assert.deepEqual(Object.keys(tree), [
      ..."owner identifier head private clone relays maintainers refs commit path view".split(" "),
      ..."entries content binary truncated commits diff next_offset".split(" "),
    ]);
    assert.deepEqual(tree.maintainers, [
      { pubkey: OWNER, role: "owner" },
      ...content.maintainers.map((k) => ({ pubkey: k.pk, role: "maintainer" })),
    ]);
    assert.equal(tree.commits, null, "a nil slice is null");
    const past = await read(relay, "read_repository", { ...args, offset: 40 });
    assert.equal(past.entries, null, "an empty page of the tree");
    const untouched = await read(relay, "read_repository", { ...args, view: "history", path: "src.md" });
    assert.equal(untouched.commits, null, "no commit touched it");
    const activity = await read(relay, "read_repository", { ...args, view: "activity" });
    assert.equal(Object.keys(activity).at(-1), "events");
    assert.ok(activity.events.length > 0);
  });
});

Deno.test("content shapes: tree pages of 50, at most 100; the commit view's next_offset", async () => {
  await withRelay({}, async (relay) => {
    relay.seed({ repositories: [repository("wide", 120, ["a", "b", "c"])] });
    const args = { owner: OWNER, repo: "wide" };
    const pageOf = async (limit?: number) => {
      const page = await read(relay, "read_repository", limit === undefined ? args : { ...args, limit });
      return [page.entries.length, page.next_offset];
    };
    assert.deepEqual(await pageOf(), [50, 50]);
    assert.deepEqual(await pageOf(100), [100, 100]);
    const commit = await read(relay, "read_repository", { ...args, view: "commit" });
    assert.deepEqual([commit.commits.length, commit.diff, commit.next_offset], [1, "a", 1]);
    const oldest = await read(relay, "read_repository", { ...args, view: "commit", ref: oid(1) });
    assert.deepEqual([oldest.commits[0].oid, oldest.diff, oldest.next_offset], [oid(1), "c", -1]);
  });
});

Deno.test("content shapes: a commit's diff cut at 256 KiB; activity and null lists without refs", async () => {
  await withRelay({}, async (relay) => {
    const empty: RepositorySeed = { owner: OWNER, identifier: "empty", clone: [], relays: [] };
    relay.seed({ repositories: [repository("big", 1, ["d".repeat(300_000)]), empty] });
    const big = await read(relay, "read_repository", { owner: OWNER, repo: "big", view: "commit" });
    assert.deepEqual([big.diff.length, big.truncated], [256 * 1024, true]);
    const activity = await read(relay, "read_repository", { owner: OWNER, repo: "empty", view: "activity" });
    assert.deepEqual([activity.commit, activity.events, activity.clone, activity.relays], [
      "",
      [],
      null,
      null,
    ]);
    const tree = await read(relay, "read_repository", { owner: OWNER, repo: "empty" });
    assert.equal("events" in tree, false, "events belong to the activity view alone");
    const listed = await read(relay, "list_repositories", { q: "empty" });
    assert.deepEqual([listed.items[0].clone, listed.items[0].relays], [null, null]);
  });
});

/** An issue on tools with `n` comments, a second apart, and the seed that holds them. */
function issueWithReplies(n: number) {
  const coordinate = `30617:${OWNER}:tools`;
  const root = signed(AGENT, { kind: 1621, created_at: AT, tags: [["a", coordinate], ["subject", "Busy"]] });
  const people = [newKey(), newKey()];
  const replies = Array.from({ length: n }, (_, i) =>
    signed(people[i % 2], {
      kind: 1111,
      created_at: AT + 1 + i,
      tags: [["a", coordinate], ["E", root.id], ["K", "1621"], ["P", root.pubkey]],
      content: `reply ${i}`,
    }));
  return { root, replies };
}

Deno.test("content shapes: an issue's replies 50 a page by default, at most 100", async () => {
  const { root, replies } = issueWithReplies(120);
  await withRelay({}, async (relay) => {
    relay.seed({ repositories: [repository("tools", 1, ["a"])], events: [root, ...replies] });
    const args = { owner: OWNER, repo: "tools", event: root.id };
    const newest = [...replies].reverse();
    const first = await read(relay, "read_issue", args);
    assert.deepEqual(first.replies.map((r: NostrEvent) => r.id), newest.slice(0, 50).map((r) => r.id));
    assert.equal(first.reply_cursor, `${newest[49].created_at}:${newest[49].id}`);
    assert.equal((await read(relay, "read_issue", { ...args, limit: 100 })).replies.length, 100);
    const last = await read(relay, "read_issue", { ...args, limit: 100, cursor: first.reply_cursor });
    assert.deepEqual([last.replies.length, "reply_cursor" in last], [70, false]);
  });
});

Deno.test("content shapes: a pull request's diff cut at 512 KiB, or the relay's reason for none", async () => {
  const coordinate = `30617:${OWNER}:tools`;
  const pull = (tip: string) =>
    signed(AGENT, { kind: 1618, created_at: AT, tags: [["a", coordinate], ["c", tip]], content: tip });
  const [big, small, missing, bad] = [pull(oid(2)), pull(oid(1)), pull(oid(99)), pull("nope")];
  await withRelay({}, async (relay) => {
    const seed = repository("tools", 1, ["p".repeat(600 * 1024), "small diff"]);
    relay.seed({ repositories: [seed], events: [big, small, missing, bad] });
    const readPull = (ev: NostrEvent) =>
      read(relay, "read_pull_request", { owner: OWNER, repo: "tools", event: ev.id });
    const cut = await readPull(big);
    assert.deepEqual([cut.diff.length, cut.diff_truncated], [512 * 1024, true]);
    const whole = await readPull(small);
    assert.deepEqual([whole.diff, "diff_truncated" in whole, "diff_unavailable" in whole], [
      "small diff",
      false,
      false,
    ]);
    const gone = await readPull(missing);
    assert.deepEqual(["diff" in gone, gone.diff_unavailable], [false, "tip commit is unavailable locally"]);
    assert.equal((await readPull(bad)).diff_unavailable, "invalid tip commit");
    assert.deepEqual(Object.keys(cut), [
      ..."repository root item replies updates statuses diff can_status diff_truncated".split(" "),
    ]);
  });
});

Deno.test("content shapes: a limit over 100, which the relay's schema refuses first, reads as the default", () => {
  const { root, replies } = issueWithReplies(60);
  const view = viewOf({ repositories: [repository("tools", 120, ["a"])], events: [root, ...replies] });
  const args = { owner: OWNER, repo: "tools", limit: 150 };
  const tree = readRepository(args, view).structuredContent as { entries: unknown[]; next_offset: number };
  assert.deepEqual([tree.entries.length, tree.next_offset], [50, 50]);
  const issue = readIssue({ ...args, event: root.id }, view).structuredContent as { replies: unknown[] };
  assert.equal(issue.replies.length, 50);
});
