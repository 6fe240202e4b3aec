// Seeded repository content: a repository (a small tree, three commits, two maintainers) with issues
// (some labelled bug, some closed or resolved by a maintainer, each with 0 to 3 replies from the
// maintainers and others) and pull requests (one merged, their commits seeded so the diff shows).
// Deterministic, signed with keys derived from the seed; the owner may be any key (no owner
// signature is needed: the maintainers set the statuses).

import type { NostrEvent } from "nostr-tools/pure";
import { sha1 } from "@noble/hashes/legacy.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { CommitSeed, RepositorySeed, Seed } from "./content_types.ts";
import {
  count,
  DEFAULT_SINCE,
  type GenKey,
  genKeys,
  type GenOptions,
  PHRASES,
  pick,
  pickIndex,
  random,
  sign,
} from "./content_gen_kit.ts";

export interface GeneratedIssue {
  event: NostrEvent;
  title: string;
  labels: string[];
  /** open, closed or resolved. */
  status: string;
  /** Oldest first. */
  replies: NostrEvent[];
  /** The newest reply's author, when there is a reply. */
  newestReplyAuthor?: string;
}

export interface IssuesContent {
  seed: Seed;
  repository: RepositorySeed;
  /** Newest first, as list_issues gives them. */
  issues: GeneratedIssue[];
  pulls: { event: NostrEvent; status: string }[];
  maintainers: GenKey[];
  reporters: GenKey[];
}

const oid = (text: string) => bytesToHex(sha1(new TextEncoder().encode(text)));

function repositoryOf(owner: string, repo: string, maintainers: GenKey[], since: number): RepositorySeed {
  const commits: CommitSeed[] = [3, 2, 1].map((n) => ({
    oid: oid(`${repo} commit ${n}`),
    parents: n > 1 ? [oid(`${repo} commit ${n - 1}`)] : [],
    author: `Maintainer ${n % 2 + 1}`,
    time: since + n * 100,
    subject: ["Start the project", "Add the parser", "Fix the retry"][n - 1],
    paths: [["README.md"], ["src/parse.ts"], ["src/retry.ts", "README.md"]][n - 1],
    diff: `--- a/file\n+++ b/file\n@@ -1 +1 @@\n-before ${n}\n+after ${n}\n`,
  }));
  return {
    owner,
    identifier: repo,
    maintainers: maintainers.map((k) => k.pk),
    files: {
      "README.md": `# ${repo}\n\nA small project for tests.\n`,
      // Git lists this file before the src tree ("src.md" < "src/"), not after it as names sort.
      "src.md": "The sources: a parser and a retry.\n",
      "src/parse.ts": 'export const parse = (s: string) => s.split(",");\n',
      "src/retry.ts": "export const retry = async (f: () => Promise<void>) => await f();\n",
      "src/util/text.ts": "export const trim = (s: string) => s.trim();\n",
    },
    commits,
  };
}

/** A kind 1111 comment on a root, as comment publishes it. */
function replyTo(key: GenKey, root: NostrEvent, coordinate: string, at: number, text: string): NostrEvent {
  const k = String(root.kind);
  return sign(key, 1111, at, [
    ["a", coordinate],
    ["E", root.id, "", root.pubkey],
    ["K", k],
    ["P", root.pubkey],
    ["e", root.id, "", root.pubkey],
    ["k", k],
    ["p", root.pubkey],
  ], text);
}

/** A status change on a root by a maintainer. */
function statusOn(key: GenKey, kind: number, root: NostrEvent, coordinate: string, at: number): NostrEvent {
  return sign(key, kind, at, [["a", coordinate], ["e", root.id, "", "root"], ["p", root.pubkey]], "");
}

/** `n` issues (default 20) and `pulls` pull requests (default 3) on `owner`'s repository `repo`. */
export function issuesContent(
  owner: string,
  repo: string,
  n = 20,
  o: GenOptions & { pulls?: number } = {},
): IssuesContent {
  count(n, 10000, "issuesContent");
  const seed = o.seed ?? 1;
  const since = o.since ?? DEFAULT_SINCE;
  const rng = random(seed + 7);
  const maintainers = genKeys(2, seed, "maintainer");
  const reporters = genKeys(3, seed, "reporter");
  const repository = repositoryOf(owner, repo, maintainers, since);
  const coordinate = `30617:${owner}:${repo}`;
  const events: NostrEvent[] = [];
  const issues: GeneratedIssue[] = [];
  for (let i = 0; i < n; i++) {
    const at = since + 1000 + i * 600;
    const title = `Issue ${i + 1}: ${pick(rng, PHRASES)}`;
    const labels = [...(rng() < 0.4 ? ["bug"] : []), ...(rng() < 0.25 ? ["docs"] : [])];
    const tags = [["a", coordinate], ["p", owner], ["subject", title], ...labels.map((l) => ["t", l])];
    const event = sign(reporters[i % 3], 1621, at, tags, `When ${title.toLowerCase()}, it fails.`);
    const people = [...maintainers, ...reporters];
    const replies = Array.from(
      { length: pickIndex(rng, 4) },
      (_, k) =>
        replyTo(pick(rng, people), event, coordinate, at + 60 * (k + 1), `Reply ${k + 1} to issue ${i + 1}`),
    );
    const roll = rng();
    const status = roll < 0.3 ? "closed" : roll < 0.45 ? "resolved" : "open";
    const change = status === "open" ? [] : [
      statusOn(maintainers[i % 2], status === "closed" ? 1632 : 1631, event, coordinate, at + 500),
    ];
    events.push(event, ...replies, ...change);
    const newestReplyAuthor = replies.at(-1)?.pubkey;
    issues.push({
      event,
      title,
      labels,
      status,
      replies,
      ...(newestReplyAuthor ? { newestReplyAuthor } : {}),
    });
  }
  const pulls = Array.from({ length: count(o.pulls ?? 3, 100, "pulls") }, (_, i) => {
    const commit = repository.commits![i % 3].oid;
    const title = `Pull ${i + 1}: fix ${PHRASES[i % PHRASES.length]}`;
    const tags = [["a", coordinate], ["p", owner], ["subject", title], ["c", commit], [
      "clone",
      "https://example.com/fork.git",
    ]];
    const event = sign(reporters[i % 3], 1618, since + 900 + i * 30, tags, `Fixes ${title.toLowerCase()}.`);
    const merged = i === 0 ? [statusOn(maintainers[0], 1631, event, coordinate, since + 950)] : [];
    events.push(event, ...merged);
    return { event, status: merged.length ? "merged" : "open" };
  });
  issues.reverse();
  pulls.reverse();
  return { seed: { repositories: [repository], events }, repository, issues, pulls, maintainers, reporters };
}
