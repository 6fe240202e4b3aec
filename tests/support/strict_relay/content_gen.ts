// Seeded content for tests, benchmarks and `deno task relay --seed`: rooms with members and messages
// (and one thread), wiki pages with versions, a replaced revision and a merge request, long tasks in
// every state, and two files (a small real PNG and a text file). Deterministic: the same options
// give the same content and ids, signed with throwaway keys derived from the seed. Issues and pull
// requests are in content_gen_repo.ts.

import type { NostrEvent } from "nostr-tools/pure";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { FileSeed, RoomSeed, Seed } from "./content_types.ts";
import { issuesContent } from "./content_gen_repo.ts";
import {
  ADJECTIVES,
  count,
  DEFAULT_SINCE,
  type GenKey,
  genKeys,
  type GenOptions,
  mergeSeeds,
  NOUNS,
  PHRASES,
  pick,
  pickIndex,
  random,
  shuffle,
  sign,
} from "./content_gen_kit.ts";

export interface GeneratedRoom {
  id: string;
  name: string;
  /** Its seeded members' keys, the owner first. */
  members: string[];
  /** Its events, oldest first. */
  messages: NostrEvent[];
}

export interface RoomsContent {
  seed: Seed;
  rooms: GeneratedRoom[];
  authors: GenKey[];
  /** A kind 11 thread in the first room with two kind 12 replies (none when n is 0). */
  thread?: { room: string; root: NostrEvent; replies: NostrEvent[] };
}

/** A kind 11 thread with two kind 12 replies, added to the room's messages. */
function threadIn(room: GeneratedRoom, authors: GenKey[], since: number): RoomsContent["thread"] {
  const root = sign(
    authors[0],
    11,
    since + 40,
    [["h", room.id], ["subject", "Plans"]],
    "What do we ship first?",
  );
  const replies = [1, 2].map((k) =>
    sign(
      authors[k],
      12,
      since + 40 + k * 10,
      [["h", room.id], ["e", root.id], ["p", root.pubkey]],
      `Reply ${k}`,
    )
  );
  room.messages.push(root, ...replies);
  return { room: room.id, root, replies };
}

/** `n` rooms (ids room-001 …), each with 2 to 5 members and 1 to 3 messages from them. */
export function roomsContent(n = 250, o: GenOptions = {}): RoomsContent {
  count(n, 10000, "roomsContent");
  const seed = o.seed ?? 1;
  const since = o.since ?? DEFAULT_SINCE;
  const rng = random(seed);
  const authors = genKeys(6, seed, "room author");
  const width = Math.max(3, String(n).length);
  const rooms: GeneratedRoom[] = [];
  const records: RoomSeed[] = [];
  for (let i = 0; i < n; i++) {
    const id = `room-${String(i + 1).padStart(width, "0")}`;
    const name = `${pick(rng, ADJECTIVES)} ${pick(rng, NOUNS)} ${i + 1}`;
    const members = shuffle(rng, authors).slice(0, 2 + pickIndex(rng, 4));
    const at = since + i * 60;
    records.push({
      id,
      name,
      about: `Talk about the ${name}.`,
      created_by: members[0].pk,
      created_at: at,
      members: members.map((k, j) => ({
        pubkey: k.pk,
        role: j === 0 ? "owner" : "member",
        added_at: at + j,
      })),
    });
    const messages = Array.from(
      { length: 1 + pickIndex(rng, 3) },
      (_, k) =>
        sign(
          members[k % members.length],
          9,
          at + 10 + k * 7,
          [["h", id]],
          `${pick(rng, PHRASES)} (${id}, ${k + 1})`,
        ),
    );
    rooms.push({ id, name, members: members.map((k) => k.pk), messages });
  }
  const thread = n > 0 ? threadIn(rooms[0], authors, since) : undefined;
  return { seed: { rooms: records, events: rooms.flatMap((r) => r.messages) }, rooms, authors, thread };
}

export interface WikiContent {
  seed: Seed;
  /** Each page's current versions, newest first. */
  pages: { d: string; title: string; versions: NostrEvent[] }[];
  /** The first page's replaced revision and the merge request aimed at it. */
  replaced: NostrEvent;
  merge: NostrEvent;
  authors: GenKey[];
}

const PAGE_NAMES = ["getting-started", "release-notes", "style-guide", "faq", "glossary", "roadmap"];

/** `n` pages, one version each; the first has a second author's version too, a replaced revision
 * of its first author's and an open merge request from the second author. */
export function wikiContent(n = 4, o: GenOptions = {}): WikiContent {
  count(n, 1000, "wikiContent");
  if (n === 0) throw new Error("wikiContent: at least one page");
  const seed = o.seed ?? 1;
  const since = o.since ?? DEFAULT_SINCE;
  const authors = genKeys(3, seed, "wiki author");
  const article = (key: GenKey, d: string, title: string, at: number, text: string) =>
    sign(key, 30818, at, [["d", d], ["title", title], ["summary", `About ${title.toLowerCase()}`]], text);
  const pages = Array.from({ length: n }, (_, i) => {
    const d = PAGE_NAMES[i] ?? `page-${i + 1}`;
    const title = d.split("-").map((w) => w[0].toUpperCase() + w.slice(1)).join(" ");
    const at = since + 3600 + i * 600;
    return {
      d,
      title,
      versions: [article(authors[i % 3], d, title, at, `# ${title}\n\nVersion one of ${d}.`)],
    };
  });
  const first = pages[0];
  const replaced = article(
    authors[0],
    first.d,
    first.title,
    since + 3000,
    `# ${first.title}\n\nA first draft.`,
  );
  const other = article(authors[1], first.d, first.title, since + 3900, `# ${first.title}\n\nAnother take.`);
  first.versions.unshift(other);
  const target = `30818:${authors[0].pk}:${first.d}`;
  const merge = sign(authors[1], 818, since + 4000, [
    ["a", target],
    ["p", authors[0].pk],
    ["e", other.id, "", "source"],
  ], "Please take in my take.");
  const events = [replaced, ...pages.flatMap((p) => p.versions), merge];
  return { seed: { events }, pages, replaced, merge, authors };
}

export interface JobsContent {
  seed: Seed;
  /** One request in each state, in this order: queued, accepted, running, done, failed, cancelled. */
  jobs: { request: NostrEvent; answers: NostrEvent[]; state: string; status: string }[];
  requesters: GenKey[];
  workers: GenKey[];
}

const JOB_SCENARIOS: [string, string, number[]][] = [
  ["open", "queued", []],
  ["open", "accepted", [43002]],
  ["open", "running", [43002, 43003]],
  ["done", "done", [43002, 43003, 43004]],
  ["failed", "failed", [43002, 43006]],
  ["cancelled", "cancelled", [43005]],
];

/** Six long tasks in `room` (default general) asking the generated workers and `assignees`. */
export function jobsContent(o: GenOptions & { room?: string; assignees?: string[] } = {}): JobsContent {
  const seed = o.seed ?? 1;
  const since = o.since ?? DEFAULT_SINCE;
  const room = o.room ?? "general";
  const requesters = genKeys(2, seed, "job requester");
  const workers = genKeys(2, seed, "job worker");
  const asked = [...workers.map((w) => w.pk), ...(o.assignees ?? [])];
  const jobs = JOB_SCENARIOS.map(([state, status, kinds], i) => {
    const requester = requesters[i % 2];
    const at = since + 7200 + i * 300;
    const subject = `Task ${i + 1}: ${PHRASES[i % PHRASES.length]}`;
    const request = sign(requester, 43001, at, [
      ["h", room],
      ["subject", subject],
      ...asked.map((p) => ["p", p]),
    ], subject);
    const answers = kinds.map((kind, k) => {
      const key = kind === 43005 ? requester : workers[i % 2];
      const tags = [["h", room], ["e", request.id], ...(kind === 43005 ? [] : [["p", requester.pk]])];
      if (kind === 43004) {
        tags.push(["e", request.id.replace(/^./, "f")], ["r", "https://example.com/report"]);
      }
      const words: Record<number, string> = { 43003: "halfway", 43004: "the output", 43006: "no such input" };
      return sign(key, kind, at + 10 + k * 10, tags, words[kind] ?? "");
    });
    return { request, answers, state, status };
  });
  const records = [{ id: room, name: room === "general" ? "General" : room, created_at: since }];
  return {
    seed: { rooms: records, events: jobs.flatMap((j) => [j.request, ...j.answers]) },
    jobs,
    requesters,
    workers,
  };
}

/** An 8 by 8 RGB gradient, a complete PNG. */
export const PNG_8X8 = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAbUlEQVR42hXOUREAUQhCUaMYhShEMcqNQhSi7Fs/" +
      "OQzjzLCDBg83MGToMLPsosXLLSxZug/ECgmLE4iI6oFZI2NzBhNTPzj20OHjDo4cvQf/7Bt41Rf+F+h7YsIGBYfL" +
      "Hyc0D8oWFZfrX05p+QDeqGABtJu0bQAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

export interface FilesContent {
  seed: Seed;
  image: FileSeed & { sha256: string };
  text: FileSeed & { sha256: string };
}

/** A small PNG and a text file, uploaded by `uploader` (default a generated key). */
export function filesContent(o: GenOptions & { uploader?: string } = {}): FilesContent {
  const seed = o.seed ?? 1;
  const since = o.since ?? DEFAULT_SINCE;
  const uploader = o.uploader ?? genKeys(1, seed, "file uploader")[0].pk;
  const file = (bytes: Uint8Array, type: string, name: string, uploaded: number) => ({
    bytes,
    type,
    uploader,
    uploaded,
    name,
    sha256: bytesToHex(sha256(bytes)),
  });
  const notes = new TextEncoder().encode(
    "Release checklist\n- tag the commit\n- write the notes\n- tell the room\n",
  );
  const image = file(PNG_8X8, "image/png", "gradient.png", since + 9000);
  const text = file(notes, "text/plain", "notes.txt", since + 9060);
  return { seed: { files: [image, text] }, image, text };
}

/** What `deno task relay --seed` serves: a dozen rooms, a repository of the agent's with issues and
 * pull requests, wiki pages, long tasks that ask the agent, and the agent's two files. */
export function demoContent(agent: string): Seed {
  return mergeSeeds(
    roomsContent(12).seed,
    issuesContent(agent, "demo").seed,
    wikiContent().seed,
    jobsContent({ assignees: [agent] }).seed,
    filesContent({ uploader: agent }).seed,
  );
}
