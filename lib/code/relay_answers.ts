// What the real relay's tools answer (their structuredContent), as data: read from tinyrelay's source,
// its browse answers (client_browse.go, rooms_browse.go, collaboration_browse.go, wiki_browse.go,
// jobs_browse.go, client_files.go), mcp_attachments.go and mcp_tools.go. Names and types are the
// relay's facts; a field Go leaves out when empty (omitempty) is optional, a list Go sends as null when
// empty is nullable. Code mode shows these as result types from a session's first call
// (search_tool.ts); the twin answers in them (tests/code/relay_answers_test.ts).

import type { Field, Shape } from "./answer_shape.ts";
import { isWriteTool } from "../facade/tools.ts";

/** The relay version these were read from. */
export const RELAY_VERSION =
  "tinyrelay, its source with long tasks as kinds 43001 to 43006 (read 2026-12-07)";

const S: Shape = "string", I: Shape = "integer", B: Shape = "boolean", U: Shape = "unknown";
const obj = (object: Record<string, Field>): Shape => ({ object });
const list = (array: Shape): Shape => ({ array });
const opt = (optional: Shape): Field => ({ optional });
const orNull = (shape: Shape): Shape => ({ union: [shape, "null"] });
const map = (shape: Shape): Shape => ({ map: shape });

const EVENT_FIELDS: Record<string, Field> = {
  id: S,
  pubkey: S,
  created_at: I,
  kind: I,
  tags: list(list(S)),
  content: S,
  sig: S,
};
const EVENT = obj(EVENT_FIELDS);
const PROPOSAL: Record<string, Field> = {
  proposal: opt(B),
  approval: opt(S),
  approval_event: opt(S),
  approval_at: opt(I),
  approval_by: opt(S),
};
const MAINTAINER = obj({ pubkey: S, role: S, name: opt(S) });
const REPOSITORY = obj({
  clone: orNull(list(S)),
  head: S,
  maintainers: list(MAINTAINER),
  owner: S,
  private: B,
  refs: map(S),
});
const ITEM = obj({
  id: S,
  kind: I,
  author: S,
  created_at: I,
  title: S,
  content: S,
  labels: list(S),
  status: S,
  ...PROPOSAL,
});
const REPLY = obj({ ...EVENT_FIELDS, file: opt(S), line: opt(I), side: opt(S), ...PROPOSAL });
const ROOM = obj({
  id: S,
  name: S,
  about: S,
  picture: S,
  access: S,
  created_by: S,
  created_at: I,
  event_id: S,
  deleted_at: opt(I),
  members: I,
  last_message_at: I,
  role: S,
});
const BLOB = obj({
  blossom_uri: S,
  download_url: S,
  sha256: S,
  size: I,
  type: S,
  uploaded: I,
  uploader: S,
  url: S,
});
const FORK = obj({ a: opt(S), e: opt(S) });
const VERSION = obj({
  id: S,
  author: S,
  created_at: I,
  d: S,
  title: S,
  summary: opt(S),
  coordinate: S,
  likes: I,
  fork: opt(FORK),
  defer: opt(FORK),
  content: opt(S),
  links: opt(list(S)),
  revision: I,
  revisions: I,
  superseded_by: opt(S),
  ...PROPOSAL,
});
const MERGE = obj({
  id: S,
  author: S,
  created_at: I,
  content: S,
  target: S,
  target_d: S,
  destination: S,
  base: opt(S),
  source: opt(S),
  status: S,
  answered_at: opt(I),
  reaction: opt(S),
});
const REDIRECT = obj({ id: S, author: S, created_at: I, d: S, target: S, target_d: S, target_author: S });
const ANSWER = obj({
  id: S,
  kind: I,
  provider: S,
  content: S,
  created_at: I,
  artifacts: opt(list(obj({ type: S, value: S }))),
});
const JOB = obj({
  id: S,
  room: S,
  requester: S,
  assignees: list(S),
  subject: opt(S),
  content: S,
  created_at: I,
  expires: opt(I),
  root: opt(S),
  state: S,
  status: S,
  progress: opt(ANSWER),
  result: opt(ANSWER),
  error: opt(ANSWER),
  cancelled_at: opt(I),
  event: EVENT,
});
const COLLABORATION_DETAIL = obj({
  repository: REPOSITORY,
  root: EVENT,
  item: ITEM,
  replies: list(REPLY),
  updates: orNull(list(EVENT)),
  statuses: orNull(list(EVENT)),
  diff: opt(S),
  can_status: B,
  diff_unavailable: opt(S),
  diff_truncated: opt(B),
  reply_cursor: opt(S),
});
const COLLABORATION_LIST = obj({ items: list(ITEM), next_cursor: S, repository: REPOSITORY });
const NIP94 = list(list(S));
const managed = (item: Shape): Shape => obj({ result: list(item) });

/** Each read tool's answer. */
export const READ_ANSWERS: Readonly<Record<string, Shape>> = {
  list_repositories: obj({
    items: list(obj({
      clone: orNull(list(S)),
      head: S,
      identifier: S,
      owner: S,
      private: B,
      refs: map(S),
      relays: orNull(list(S)),
    })),
    next_cursor: S,
  }),
  read_repository: obj({
    owner: S,
    identifier: S,
    head: S,
    private: B,
    clone: orNull(list(S)),
    relays: orNull(list(S)),
    maintainers: opt(list(MAINTAINER)),
    refs: map(S),
    commit: S,
    path: S,
    view: S,
    entries: orNull(list(obj({ name: S, path: S, mode: S, type: S, oid: S, size: I }))),
    content: S,
    binary: B,
    truncated: B,
    commits: orNull(list(obj({ oid: S, parents: list(S), author: S, time: I, subject: S }))),
    diff: S,
    next_offset: I,
    events: opt(list(EVENT)),
  }),
  list_issues: COLLABORATION_LIST,
  read_issue: COLLABORATION_DETAIL,
  list_pull_requests: COLLABORATION_LIST,
  read_pull_request: COLLABORATION_DETAIL,
  list_files: obj({ items: list(BLOB), next_cursor: S }),
  read_file: obj({
    access: opt(S),
    binary: B,
    blossom_uri: S,
    content: opt(S),
    download_url: S,
    name: opt(S),
    path: opt(S),
    sha256: S,
    size: I,
    truncated: B,
    type: S,
    uploaded: I,
    uploader: opt(S),
    url: S,
  }),
  read_attachment: obj({
    data: S,
    nip94: NIP94,
    sha256: S,
    size: I,
    text: opt(S),
    type: S,
    uploaded: I,
    url: S,
  }),
  read_status: obj({
    backups: U,
    capabilities: U,
    delivery: U,
    errors: map(S),
    git_sync: U,
    jobs: U,
    peers: opt(U),
    storage: U,
  }),
  read_management: obj({ result: U }),
  list_rooms: obj({ items: list(ROOM), next_cursor: S }),
  read_room: obj({
    edits: list(EVENT),
    members: list(obj({ pubkey: S, role: S, added_at: I, agent: opt(B) })),
    messages: list(EVENT),
    next_cursor: S,
    room: ROOM,
  }),
  read_thread: obj({ edits: list(EVENT), next_cursor: S, replies: list(EVENT), room: ROOM, root: EVENT }),
  list_wiki: obj({
    can_approve: B,
    items: list(obj({ d: S, title: S, summary: opt(S), version: VERSION, versions: I, open_merges: I })),
    next_cursor: S,
  }),
  read_wiki_page: obj({
    d: S,
    title: S,
    version: orNull(VERSION),
    preferred_by: opt(S),
    versions: list(VERSION),
    merges: list(MERGE),
    redirects_to: list(REDIRECT),
    redirects_from: list(REDIRECT),
    history: list(VERSION),
    can_approve: B,
  }),
  read_merge_request: obj({ merge: MERGE, proposed: orNull(VERSION), target: orNull(VERSION) }),
  list_agents: managed(U),
  list_jobs: obj({ items: list(JOB), next_cursor: S }),
  read_job: obj({ answers: list(ANSWER), item: JOB }),
  list_callbacks: managed(U),
  list_custom_views: managed(U),
  list_join_requests: managed(U),
};

/** What upload_attachment answers: the room attachment's descriptor. */
export const UPLOAD_ANSWER: Shape = obj({
  filename: S,
  nip94: NIP94,
  room: S,
  sha256: S,
  size: I,
  type: S,
  uploaded: I,
  url: S,
});

/** A write tool's first answer: the unsigned event to sign, and what to do with it. */
export const TEMPLATE_ANSWER: Shape = obj({
  next: S,
  unsigned: obj({ kind: I, created_at: I, tags: list(list(S)), content: S }),
});

/** A write tool's second answer, the one a program gets (tinyagent signs the first): the relay's verdict. */
export const PUBLISH_ANSWER: Shape = obj({ accepted: B, event_id: S, message: S });

/** What a program gets from `tool` as the relay's version answers it: a read's answer, a write's verdict. */
export function shippedShape(tool: string): Shape | undefined {
  if (Object.hasOwn(READ_ANSWERS, tool)) return READ_ANSWERS[tool];
  if (tool === "upload_attachment") return UPLOAD_ANSWER;
  return isWriteTool(tool) ? PUBLISH_ANSWER : undefined;
}
