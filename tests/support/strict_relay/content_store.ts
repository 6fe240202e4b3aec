// What the twin holds besides its events: the rooms (seeded, created by kind 9007 or joined by a first
// post), repositories and files, a seed checked whole before any of it is kept and its events put in
// the relay's one event store. The read tools answer from it (content_tools.ts), seeded or not.

import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { FileSeed, MemberSeed, RepositorySeed, RoomSeed, Seed } from "./content_types.ts";
import { answerContent } from "./content_tools.ts";
import { fileFor } from "./content_files.ts";
import type { ContentView } from "./content_view.ts";
import type { NostrEvent } from "nostr-tools/pure";
import type { EventStore } from "./event_store.ts";
import { canonical, eventProblem } from "./signed_event.ts";
import type { Attachment, ToolResult } from "./types.ts";
import { isRecord } from "./values.ts";

/** What the content reads of the relay. */
export interface ContentDeps {
  events: EventStore;
  /** The relay's rooms: a seeded room joins them. */
  rooms(): Set<string>;
  url: string;
  /** Unix seconds. */
  now(): number;
  uploads: ReadonlyMap<string, { bytes: Uint8Array; type: string }>;
  attachments: ReadonlyMap<string, Attachment>;
}

const ROOM_ID = /^[a-z0-9_-]{1,64}$/;
const HEX64 = /^[0-9a-f]{64}$/;
const ROLES = ["owner", "admin", "member"];

function memberProblem(m: MemberSeed): string | undefined {
  if (!isRecord(m) || typeof m.pubkey !== "string" || !HEX64.test(m.pubkey)) {
    return "a member's pubkey must be 64 lowercase hex";
  }
  if (m.role !== undefined && !ROLES.includes(m.role)) {
    return `member role ${m.role} is not ${ROLES.join(", ")}`;
  }
  return undefined;
}

function roomProblem(r: RoomSeed): string | undefined {
  if (!isRecord(r) || typeof r.id !== "string" || !ROOM_ID.test(r.id)) {
    return `room id ${JSON.stringify(isRecord(r) ? r.id : r)} is not 1 to 64 of a-z, 0-9, - and _`;
  }
  if (typeof r.name !== "string") return `room ${r.id}: name must be a string`;
  if (r.access !== undefined && r.access !== "open" && r.access !== "members") {
    return `room ${r.id}: access must be open or members`;
  }
  for (const m of r.members ?? []) {
    const why = memberProblem(m);
    if (why) return `room ${r.id}: ${why}`;
  }
  return undefined;
}

function repositoryProblem(r: RepositorySeed): string | undefined {
  if (!isRecord(r) || typeof r.owner !== "string" || !HEX64.test(r.owner)) {
    return "a repository's owner must be 64 lowercase hex";
  }
  if (typeof r.identifier !== "string" || r.identifier === "" || r.identifier.includes("/")) {
    return `repository identifier ${JSON.stringify(r.identifier)} must be a non-empty name without /`;
  }
  if ((r.maintainers ?? []).some((k) => !HEX64.test(k))) {
    return `${r.identifier}: maintainers must be hex keys`;
  }
  return undefined;
}

function fileProblem(f: FileSeed): string | undefined {
  if (!isRecord(f) || !(f.bytes instanceof Uint8Array)) return "a file's bytes must be a Uint8Array";
  if (typeof f.type !== "string" || !/^[\w.+-]+\/[\w.+-]+$/.test(f.type)) return "a file needs a media type";
  if (typeof f.uploader !== "string" || !HEX64.test(f.uploader)) return "a file's uploader must be a hex key";
  if (!Number.isSafeInteger(f.uploaded)) return "a file's uploaded must be unix seconds";
  return undefined;
}

const PARTS = ["rooms", "repositories", "files", "events"] as const;

/** The first problem of a seed, or undefined. */
function seedProblem(content: Seed): string | undefined {
  if (typeof content !== "object" || content === null || Array.isArray(content)) {
    return "the seed must be an object";
  }
  const part = PARTS.find((name) => content[name] !== undefined && !Array.isArray(content[name]));
  if (part) return `${part} must be a list`;
  const problems = [
    ...(content.rooms ?? []).map(roomProblem),
    ...(content.repositories ?? []).map(repositoryProblem),
    ...(content.files ?? []).map(fileProblem),
    ...(content.events ?? []).map((ev) => {
      const why = eventProblem(ev);
      return why && `event ${isRecord(ev) ? ev.id : ev}: ${why}`;
    }),
  ];
  return problems.find((why) => why !== undefined);
}

export class ContentStore {
  #seeded = false;
  readonly #rooms = new Map<string, RoomSeed>();
  readonly #repositories = new Map<string, RepositorySeed>();
  readonly #files = new Map<string, FileSeed>();
  readonly #deps: ContentDeps;

  constructor(deps: ContentDeps) {
    this.#deps = deps;
  }

  get seeded(): boolean {
    return this.#seeded;
  }

  /** Adds the content (all of it, or none when any part is malformed: then it throws). */
  seed(content: Seed): void {
    const why = seedProblem(content);
    if (why) throw new Error(`strict relay: seed: ${why}`);
    for (const room of content.rooms ?? []) {
      this.#rooms.set(room.id, structuredClone(room));
      this.#deps.rooms().add(room.id);
    }
    for (const repo of content.repositories ?? []) {
      this.#repositories.set(`${repo.owner}/${repo.identifier}`, structuredClone(repo));
    }
    for (const file of content.files ?? []) this.#files.set(bytesToHex(sha256(file.bytes)), { ...file });
    for (const ev of content.events ?? []) this.#deps.events.add(canonical(ev));
    this.#seeded = true;
  }

  /** A read tool's answer from what the relay holds, or undefined for a tool content does not serve. */
  answer(tool: string, args: Record<string, unknown>, caller: string): ToolResult | undefined {
    return answerContent(tool, args, this.#view(caller));
  }

  /** A room the relay holds with its access and members (seeded, or created or joined here). */
  room(id: string): RoomSeed | undefined {
    return this.#rooms.get(id);
  }

  /** A stored event by id, for the write gates and templates (the twin shows every caller every event). */
  event(id: string, _caller: string): NostrEvent | undefined {
    return this.#deps.events.events.find((ev) => ev.id === id);
  }

  /** Whether the bytes are a seeded file: stored without a room. */
  seededFile(sha256: string): boolean {
    return this.#files.has(sha256);
  }

  /**
   * What an accepted event changes of the rooms: kind 9007 creates its room (its author the owner),
   * and a first post by a relay member in an open room joins it (the relay's HandleRoomMessageTx).
   */
  accepted(ev: NostrEvent, isMember: (pubkey: string) => boolean): void {
    const id = ev.tags.find((t) => t[0] === "h")?.[1];
    if (id === undefined) return;
    if (ev.kind === 9007 && !this.#rooms.has(id) && !this.#deps.rooms().has(id)) {
      const tag = (name: string) => ev.tags.find((t) => t[0] === name)?.[1];
      const access = tag("visibility") === "members" ? "members" : "open";
      this.#rooms.set(id, {
        id,
        name: tag("name") ?? "",
        ...(tag("about") ? { about: tag("about") } : {}),
        access,
        created_by: ev.pubkey,
        created_at: ev.created_at,
        event_id: ev.id,
        members: [{ pubkey: ev.pubkey, role: "owner", added_at: ev.created_at }],
      });
      this.#deps.rooms().add(id);
      return;
    }
    const room = this.#rooms.get(id) ?? (this.#deps.rooms().has(id) ? this.#adopt(id) : undefined);
    if (!room || (room.access ?? "open") !== "open" || !isMember(ev.pubkey)) return;
    room.members ??= [];
    if (!room.members.some((member) => member.pubkey === ev.pubkey)) {
      room.members.push({ pubkey: ev.pubkey, role: "member", added_at: ev.created_at });
    }
  }

  /** A room the relay was started with, kept from now on with its members. */
  #adopt(id: string): RoomSeed {
    const room: RoomSeed = { id, name: "", members: [] };
    this.#rooms.set(id, room);
    return room;
  }

  /** A stored file by hash (seeded, a room attachment or an upload), for the file download. */
  file(sha256: string): FileSeed | undefined {
    return fileFor(this.#view(""), sha256);
  }

  #view(caller: string): ContentView {
    // A room the relay accepts posts in but nobody seeded is a room all the same, with no name.
    const rooms = new Map(this.#rooms);
    for (const id of this.#deps.rooms()) if (!rooms.has(id)) rooms.set(id, { id, name: "" });
    return {
      caller,
      now: Math.floor(this.#deps.now()),
      url: this.#deps.url,
      events: this.#deps.events.events,
      rooms,
      repositories: this.#repositories,
      files: this.#files,
      uploads: this.#deps.uploads,
      attachments: this.#deps.attachments,
    };
  }
}
