// Content mode's state: the seeded rooms, repositories and files, checked whole before any of a seed
// is kept, and its events put in the relay's one event store. Once seeded, the read tools answer
// from it (content_tools.ts); until then `answer` leaves every call to the echo.

import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { FileSeed, MemberSeed, RepositorySeed, RoomSeed, Seed } from "./content_types.ts";
import { answerContent } from "./content_tools.ts";
import { fileFor } from "./content_files.ts";
import type { ContentView } from "./content_view.ts";
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

  /** The seeded answer to a read tool's call, or undefined: not seeded, or not a content tool. */
  answer(tool: string, args: Record<string, unknown>, caller: string): ToolResult | undefined {
    return this.#seeded ? answerContent(tool, args, this.#view(caller)) : undefined;
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
