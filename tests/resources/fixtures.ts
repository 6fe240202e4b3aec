// Realistic answers of the relay's read and list tools, in the shapes the real relay gives
// (FelineStateMachine/tinyrelay, internal/daemon: the browse methods behind mcp_tools.go), with
// its field names and orders: newest first where the relay sorts so. Built here, by hand.

import assert from "node:assert/strict";
import type { RenderContext } from "../../lib/resources/markdown.ts";

export const ALICE = "a1".repeat(32);
export const BOB = "b2".repeat(32);
export const AGENT = "c3".repeat(32);
export const OWNER = "d4".repeat(32);

/** An event id made of one repeated byte, readable in failures. */
export const id = (byte: string) => byte.repeat(32);

/** 2026-01-01 00:00:00 UTC. */
export const T0 = 1767225600;

export const CTX: RenderContext = {
  uri: "tiny://relay.example/room/general",
  base: { host: "relay.example" },
};

/** A signed event as the relay stores and returns it. */
export function event(
  fields: { id: string; pubkey: string; kind: number; at: number; tags?: string[][]; content?: string },
) {
  return {
    id: fields.id,
    pubkey: fields.pubkey,
    created_at: fields.at,
    kind: fields.kind,
    tags: fields.tags ?? [],
    content: fields.content ?? "",
    sig: "5e".repeat(64),
  };
}

export const ROOM_SUMMARY = {
  id: "general",
  name: "General",
  about: "Everything that has no room of its own",
  picture: "",
  access: "open",
  created_by: OWNER,
  created_at: T0 - 86_400,
  event_id: id("01"),
  members: 3,
  last_message_at: T0 + 600,
  role: "member",
};

export const HELLO = event({
  id: id("10"),
  pubkey: ALICE,
  kind: 9,
  at: T0,
  tags: [["h", "general"]],
  content: "hello all",
});
export const PLANS = event({
  id: id("11"),
  pubkey: BOB,
  kind: 11,
  at: T0 + 60,
  tags: [["h", "general"], ["subject", "Plans for March"]],
  content: "What do we ship in March?",
});
export const REPLY = event({
  id: id("12"),
  pubkey: AGENT,
  kind: 12,
  at: T0 + 120,
  tags: [["h", "general"], ["e", id("11")], ["p", BOB]],
  content: "The resources layer.",
});
export const EDIT = event({
  id: id("13"),
  pubkey: ALICE,
  kind: 40003,
  at: T0 + 300,
  tags: [["h", "general"], ["e", id("10")]],
  content: "hello everyone",
});
export const REACTION = event({
  id: id("14"),
  pubkey: BOB,
  kind: 7,
  at: T0 + 600,
  tags: [["h", "general"], ["e", id("10")], ["p", ALICE]],
  content: "+",
});
export const JOINED = event({
  id: id("15"),
  pubkey: OWNER,
  kind: 44100,
  at: T0 - 60,
  tags: [["h", "general"], ["p", AGENT]],
});

/** read_room: room summary, members (owners and admins first), messages newest first, edits, next_cursor. */
export const READ_ROOM = {
  room: ROOM_SUMMARY,
  members: [
    { pubkey: OWNER, role: "owner", added_at: T0 - 86_400 },
    { pubkey: ALICE, role: "member", added_at: T0 - 3_600 },
    { pubkey: AGENT, role: "member", added_at: T0 - 60, agent: true },
  ],
  messages: [REACTION, EDIT, REPLY, PLANS, HELLO, JOINED],
  edits: [EDIT],
  next_cursor: `${T0 - 60}:${id("15")}`,
};

/** read_thread: room (its own fields: the counts and role zero), root, replies newest first, edits, next_cursor. */
export const READ_THREAD = {
  room: { ...ROOM_SUMMARY, members: 0, last_message_at: 0, role: "" },
  root: PLANS,
  replies: [
    event({
      id: id("22"),
      pubkey: BOB,
      kind: 12,
      at: T0 + 900,
      tags: [["h", "general"], ["e", id("11")]],
      content: "Agreed.",
    }),
    REPLY,
  ],
  edits: [],
  next_cursor: "",
};

/** read_repository, tree view (gitrelay.BrowsePage with maintainers, the owner first). */
export const READ_REPOSITORY = {
  owner: OWNER,
  identifier: "tinyagent",
  head: "ref: refs/heads/main",
  private: false,
  clone: ["https://relay.example/d4d4.git"],
  relays: ["wss://relay.example"],
  maintainers: [{ pubkey: OWNER, role: "owner" }, { pubkey: ALICE, role: "maintainer" }],
  refs: { "refs/heads/main": "9f".repeat(20), "refs/tags/v0.1.0": "8e".repeat(20) },
  commit: "9f".repeat(20),
  path: "",
  view: "tree",
  entries: [
    { name: "lib", path: "lib", mode: "040000", type: "tree", oid: "7d".repeat(20), size: 0 },
    { name: "README.md", path: "README.md", mode: "100644", type: "blob", oid: "6c".repeat(20), size: 4_321 },
  ],
  content: "",
  binary: false,
  truncated: false,
  commits: null,
  diff: "",
  next_offset: -1,
};

const COORDINATE = `30617:${OWNER}:tinyagent`;

export const ISSUE_ROOT = event({
  id: id("31"),
  pubkey: ALICE,
  kind: 1621,
  at: T0,
  tags: [["a", COORDINATE], ["p", OWNER], ["subject", "Rooms do not list"], ["t", "bug"], ["t", "rooms"]],
  content: "Steps:\n1. open the @ menu\n2. nothing",
});

/** read_issue (collaborationDetail): repository, root, item, replies newest first, updates, statuses. */
export const READ_ISSUE = {
  repository: {
    clone: READ_REPOSITORY.clone,
    head: "ref: refs/heads/main",
    maintainers: [{ pubkey: OWNER, role: "owner" }],
    owner: OWNER,
    private: false,
    refs: READ_REPOSITORY.refs,
  },
  root: ISSUE_ROOT,
  item: {
    id: id("31"),
    kind: 1621,
    author: ALICE,
    created_at: T0,
    title: "Rooms do not list",
    content: ISSUE_ROOT.content,
    labels: ["bug", "rooms"],
    status: "resolved",
  },
  replies: [
    {
      ...event({ id: id("33"), pubkey: ALICE, kind: 1111, at: T0 + 7_200, content: "Fixed for me, thanks." }),
    },
    { ...event({ id: id("32"), pubkey: OWNER, kind: 1111, at: T0 + 3_600, content: "Looking into it." }) },
  ],
  updates: null,
  statuses: [
    event({ id: id("34"), pubkey: OWNER, kind: 1631, at: T0 + 5_000, tags: [["e", id("31"), "", "root"]] }),
  ],
  can_status: false,
};

export const PULL_ROOT = event({
  id: id("41"),
  pubkey: BOB,
  kind: 1618,
  at: T0,
  tags: [
    ["a", COORDINATE],
    ["p", OWNER],
    ["subject", "Add resources"],
    ["c", "ab".repeat(20)],
    ["clone", "https://git.example/bob/tinyagent.git"],
    ["merge-base", "9f".repeat(20)],
  ],
  content: "This adds the tiny:// namespace.",
});

/** read_pull_request: like an issue, plus updates (kind 1619) and the diff. */
export const READ_PULL = {
  repository: READ_ISSUE.repository,
  root: PULL_ROOT,
  item: {
    id: id("41"),
    kind: 1618,
    author: BOB,
    created_at: T0,
    title: "Add resources",
    content: PULL_ROOT.content,
    labels: [],
    status: "open",
  },
  replies: [{
    ...event({ id: id("42"), pubkey: OWNER, kind: 1111, at: T0 + 100, content: "Why a cap here?" }),
    file: "lib/resources/nearest.ts",
    line: 12,
    side: "new",
  }],
  updates: [event({
    id: id("43"),
    pubkey: BOB,
    kind: 1619,
    at: T0 + 50,
    tags: [["E", id("41")], ["P", BOB], ["c", "cd".repeat(20)], ["merge-base", "9f".repeat(20)]],
  })],
  statuses: [],
  diff: "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n",
  can_status: true,
};

/** A wiki version as list_wiki and read_wiki_page list one (wikiVersion, not in full). */
function wikiVersion(fields: { id: string; author: string; at: number; likes?: number; revision?: number }) {
  return {
    id: fields.id,
    author: fields.author,
    created_at: fields.at,
    d: "getting-started",
    title: "Getting started",
    summary: "First steps on this relay",
    coordinate: `30818:${fields.author}:getting-started`,
    likes: fields.likes ?? 0,
    revision: fields.revision ?? 1,
    revisions: fields.author === ALICE ? 2 : 1,
  };
}

const ALICE_VERSION = wikiVersion({ id: id("51"), author: ALICE, at: T0, likes: 2, revision: 2 });
const BOB_VERSION = wikiVersion({ id: id("52"), author: BOB, at: T0 - 600 });

/** A merge request aimed at Alice's version (wikiMerge). */
function wikiMerge(mergeId: string, status: string) {
  return {
    id: mergeId,
    author: BOB,
    created_at: T0 + 60,
    content: "Take in my steps.",
    target: `30818:${ALICE}:getting-started`,
    target_d: "getting-started",
    destination: ALICE,
    source: id("52"),
    status,
    ...(status === "open" ? {} : { answered_at: T0 + 120, reaction: id("56") }),
  };
}

/** read_wiki_page (wikiPage): the preferred version in full, the versions, merges, redirects, history. */
export const READ_WIKI = {
  d: "getting-started",
  title: "Getting started",
  version: {
    ...ALICE_VERSION,
    content: "# Getting started\n\nRead [the rules](rules) first.\n",
    links: ["rules"],
    revision: 2,
    revisions: 2,
  },
  preferred_by: "reactions",
  versions: [ALICE_VERSION, BOB_VERSION],
  merges: [wikiMerge(id("53"), "open"), wikiMerge(id("54"), "accepted")],
  redirects_to: [{
    id: id("55"),
    author: BOB,
    created_at: T0 - 60,
    d: "start",
    target: `30818:${ALICE}:getting-started`,
    target_d: "getting-started",
    target_author: ALICE,
  }],
  redirects_from: [],
  history: [
    ALICE_VERSION,
    BOB_VERSION,
    { ...wikiVersion({ id: id("57"), author: ALICE, at: T0 - 3_600 }), superseded_by: id("51") },
  ],
  can_approve: false,
};

/** read_job: item (settled) and answers oldest first. */
export const READ_JOB = {
  item: {
    id: id("61"),
    room: "general",
    requester: ALICE,
    assignees: [AGENT],
    subject: "Summarise the week",
    content: "Summarise this week's discussion in #general.",
    created_at: T0,
    root: id("11"),
    state: "done",
    status: "done",
    result: { id: id("64"), kind: 43004, provider: AGENT, content: "Summary…", created_at: T0 + 900 },
    event: event({ id: id("61"), pubkey: ALICE, kind: 43001, at: T0 }),
  },
  answers: [
    { id: id("62"), kind: 43002, provider: AGENT, content: "", created_at: T0 + 60 },
    { id: id("63"), kind: 43003, provider: AGENT, content: "Reading 40 messages", created_at: T0 + 300 },
    {
      id: id("64"),
      kind: 43004,
      provider: AGENT,
      content: "Summary: the resources layer lands.",
      created_at: T0 + 900,
      artifacts: [{ type: "e", value: id("11") }, { type: "r", value: "https://relay.example/notes" }],
    },
  ],
};

/** The extensions the relay gives a file's URL, for the types these fixtures use. */
const EXTENSIONS: Record<string, string> = {
  "image/png": ".png",
  "text/plain": ".txt",
  "application/pdf": ".pdf",
};

/** read_attachment's structuredContent (a Go map, keys sorted): the Blossom descriptor, data, and text for text types. */
export function attachment(type: string, bytes: Uint8Array) {
  const data = btoa(String.fromCharCode(...bytes));
  const url = `https://relay.example/${id("71")}${EXTENSIONS[type] ?? ""}`;
  const sha = id("71");
  return {
    data,
    nip94: [["url", url], ["m", type], ["x", sha], ["ox", sha], ["size", String(bytes.length)]],
    sha256: sha,
    size: bytes.length,
    ...(type.startsWith("text/") ? { text: new TextDecoder().decode(bytes) } : {}),
    type,
    uploaded: T0,
    url,
  };
}

export const LIST_ROOMS = {
  items: [ROOM_SUMMARY, {
    ...ROOM_SUMMARY,
    id: "dev",
    name: "",
    about: "",
    access: "members",
    members: 1,
    last_message_at: 0,
  }],
  next_cursor: "dev",
};

/** list_repositories: each a Go map (keys sorted), an empty clone or relay list null. */
export const LIST_REPOSITORIES = {
  items: [
    {
      clone: READ_REPOSITORY.clone,
      head: "ref: refs/heads/main",
      identifier: "tinyagent",
      owner: OWNER,
      private: false,
      refs: READ_REPOSITORY.refs,
      relays: null,
    },
    { clone: null, head: "", identifier: "notes", owner: ALICE, private: true, refs: {}, relays: null },
  ],
  next_cursor: "",
};

/** list_wiki: each page's preferred version, not in full. */
export const LIST_WIKI = {
  can_approve: false,
  items: [{
    d: "getting-started",
    title: "Getting started",
    summary: "First steps",
    version: ALICE_VERSION,
    versions: 2,
    open_merges: 1,
  }],
  next_cursor: "",
};

export const LIST_JOBS = {
  items: [
    {
      ...READ_JOB.item,
      id: id("65"),
      state: "open",
      status: "running",
      progress: { id: id("66"), kind: 43003, provider: AGENT, content: "", created_at: T0 + 1_000 },
    },
    READ_JOB.item,
  ],
  next_cursor: `${T0}:${id("61")}`,
};

export const LIST_ISSUES = {
  repository: READ_ISSUE.repository,
  items: [READ_ISSUE.item, {
    ...READ_ISSUE.item,
    id: id("35"),
    title: "Wiki pages render twice",
    status: "open",
  }],
  next_cursor: "",
};

/** The lines of a markdown text that are not inside a fenced code block (a fence closes on a run as long). */
export function linesOutsideFences(markdown: string): string[] {
  const outside: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split("\n")) {
    if (fence === undefined) {
      const open = /^(`{3,})/.exec(line);
      if (open) fence = open[1];
      else outside.push(line);
    } else if (new RegExp(`^${fence}\`*\\s*$`).test(line)) fence = undefined;
  }
  assert.equal(fence, undefined, "every fence is closed");
  return outside;
}
