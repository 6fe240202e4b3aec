// What `relay.seed(content)` takes. The read tools (list_rooms, read_room, read_thread,
// list_repositories, read_repository, list_issues, read_issue, list_pull_requests, read_pull_request,
// list_wiki, read_wiki_page, list_jobs, read_job, list_files, read_file and read_attachment) always
// answer from what the relay holds, as the real relay does: empty until a test (or `deno task relay
// --seed`) seeds content, with the real relay's result shapes, paging, filters and errors.
//
// The seed keeps what the real relay keeps in tables as plain records (rooms and their members,
// hosted repositories, stored files) and everything the real relay keeps as Nostr events as signed
// events, which go into the relay's one event store: room messages (kinds 9, 11, 12, 7 with an `h`
// tag), issues (1621), pull requests (1618), their comments (1111) and status changes (1630-1633),
// wiki pages (30818) and long tasks (43001-43006). Reads derive from that store, so an event
// published later (post_message, POST /events, the websocket, inject) shows in the reads, and the
// websocket delivers seeded events to subscribers. Seeding is additive; content_gen.ts builds seeds.

import type { NostrEvent } from "nostr-tools/pure";

/** A room member as the relay lists it. */
export interface MemberSeed {
  pubkey: string;
  /** "owner", "admin" or "member" (default "member"). */
  role?: string;
  /** Unix seconds (default the room's created_at). */
  added_at?: number;
  /** Marks an agent identity, as the relay does. */
  agent?: boolean;
}

/** A chat room (the relay's rooms table). Its id joins the relay's rooms, so posting to it is accepted. */
export interface RoomSeed {
  /** 1 to 64 of a-z, 0-9, - and _. */
  id: string;
  name: string;
  about?: string;
  picture?: string;
  /** "open" (default) or "members": a members room is hidden from keys that are not its members. */
  access?: "open" | "members";
  /** Hex pubkey of the creator (default ""). */
  created_by?: string;
  /** Unix seconds (default 0). */
  created_at?: number;
  /** The room's creation event id (default ""). */
  event_id?: string;
  members?: MemberSeed[];
}

/** A hosted Git repository (the relay's repository registry). */
export interface RepositorySeed {
  /** Hex pubkey. */
  owner: string;
  identifier: string;
  /** As the announcement says, e.g. "ref: refs/heads/main" (the default). */
  head?: string;
  private?: boolean;
  /** Clone URLs (default one under the relay's URL). */
  clone?: string[];
  relays?: string[];
  /** Ref name to commit id, e.g. {"refs/heads/main": "<40 hex>"} (default main at the newest commit). */
  refs?: Record<string, string>;
  /** Maintainer keys besides the owner: their status changes count. */
  maintainers?: string[];
  /** The tree at the head: path to text content. */
  files?: Record<string, string>;
  /** The history, newest first. */
  commits?: CommitSeed[];
}

export interface CommitSeed {
  /** 40 hex. */
  oid: string;
  parents?: string[];
  author: string;
  /** Unix seconds. */
  time: number;
  subject: string;
  /** The files it changed: history with a path lists the commits that touched it. */
  paths?: string[];
  /** What read_repository's commit view shows (default ""). */
  diff?: string;
}

/** A stored file (the relay's blob store). */
export interface FileSeed {
  bytes: Uint8Array;
  /** The media type, e.g. "image/png". */
  type: string;
  /** Hex pubkey of the uploader. */
  uploader: string;
  /** Unix seconds. */
  uploaded: number;
  /** The uploader's name for it, shown by read_file. */
  name?: string;
}

/** What relay.seed() takes; every part optional, each call adds to what is there. */
export interface Seed {
  rooms?: RoomSeed[];
  repositories?: RepositorySeed[];
  files?: FileSeed[];
  /** Complete signed events (checked as inject() checks them). */
  events?: NostrEvent[];
}
