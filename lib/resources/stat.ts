// `?as=stat`: what a thing is, without its body: its kind, title, size where known, last change
// and counts (members, replies, versions, answers), from the cheapest call that says them: a room's
// summary with one message, a wiki page and a file from their listing (searched by name or hash),
// the rest from their read. A page or file the listing does not find is read the long way. Pure.

import { isObject } from "../wire/json.ts";
import type { ItemKind, ResourceAddress } from "./kinds.ts";
import { readCall } from "./kinds.ts";
import { arr, num, obj, str, strings, tagValue } from "./fields.ts";
import { isoTime } from "./markdown.ts";
import { oneLine } from "./text.ts";

/** A stat, as `?as=stat` gives it (application/json). */
export interface Stat {
  uri: string;
  kind: ItemKind;
  title?: string;
  /** Bytes, for a file. */
  size?: number;
  type?: string;
  state?: string;
  /** ISO 8601, when the relay says. */
  lastChange?: string;
  counts?: Record<string, number>;
}

/** The call a stat reads first; `listed` when it is a listing the item must be found in. */
export function statCall(address: ResourceAddress): {
  tool: string;
  arguments: Record<string, unknown>;
  listed: boolean;
} {
  const v = address.values;
  switch (address.kind) {
    case "room":
      return { tool: "read_room", arguments: { id: v.id, limit: 1 }, listed: false };
    case "wiki":
      return { tool: "list_wiki", arguments: { q: v.d, limit: 100 }, listed: true };
    case "file":
      return { tool: "list_files", arguments: { q: v.sha256, limit: 100 }, listed: true };
    default:
      return { ...readCall(address), listed: false };
  }
}

/** The newest time among these (unix seconds), as ISO 8601. */
function newest(...times: (number | undefined)[]): string | undefined {
  const known = times.filter((t): t is number => t !== undefined);
  return known.length === 0 ? undefined : isoTime(Math.max(...known));
}

const times = (items: unknown[]) => items.map((item) => num(item, "created_at"));

function title(text: string | undefined): string | undefined {
  const line = text?.split("\n", 1)[0].trim();
  return line ? oneLine(line, 200) : undefined;
}

/** The item a listing answer holds for the address, if it holds it. */
export function listedItem(address: ResourceAddress, answer: unknown): Record<string, unknown> | undefined {
  const key = address.kind === "wiki" ? "d" : "sha256";
  const want = address.kind === "wiki" ? address.values.d : address.values.sha256;
  return arr(answer, "items").filter(isObject).find((item) => str(item, key) === want);
}

/** Each kind's fields, from the answer its stat call (or its read) gave. */
const FIELDS: Record<ItemKind, (answer: unknown, values: Readonly<Record<string, string>>) => Partial<Stat>> =
  {
    room: (answer, values) => {
      const room = obj(answer, "room");
      const members = num(room, "members");
      return {
        title: title(str(room, "name")) ?? `#${values.id}`,
        lastChange: newest(num(room, "last_message_at"), num(room, "created_at")),
        counts: members === undefined ? undefined : { members },
      };
    },
    thread: (answer) => {
      const root = obj(answer, "root"), replies = arr(answer, "replies");
      const tags = arr(root, "tags").filter((t): t is string[] => Array.isArray(t));
      return {
        title: title(tagValue(tags, "subject") ?? str(root, "content")),
        lastChange: newest(num(root, "created_at"), ...times(replies)),
        counts: { replies: replies.length },
      };
    },
    repo: (answer) => {
      const refs = obj(answer, "refs");
      return {
        title: title(str(answer, "identifier")),
        counts: refs ? { refs: Object.keys(refs).length } : undefined,
      };
    },
    issue: collaboration,
    pull: collaboration,
    wiki: wikiFields,
    job: (answer) => {
      const item = obj(answer, "item"), answers = arr(answer, "answers");
      return {
        title: title(str(item, "subject") ?? str(item, "content")),
        state: str(item, "state"),
        lastChange: newest(num(item, "created_at"), ...times(answers)),
        counts: { answers: answers.length, assignees: strings(item, "assignees").length },
      };
    },
    file: (answer) => ({
      title: title(str(answer, "name")),
      size: num(answer, "size"),
      type: str(answer, "type"),
      lastChange: newest(num(answer, "uploaded")),
    }),
  };

function collaboration(answer: unknown): Partial<Stat> {
  const item = obj(answer, "item"), replies = arr(answer, "replies"), statuses = arr(answer, "statuses");
  return {
    title: title(str(item, "title")),
    state: str(item, "status"),
    lastChange: newest(num(item, "created_at"), ...times(replies), ...times(statuses)),
    counts: { replies: replies.length, statuses: statuses.length },
  };
}

/** The stat of a single resource from the answer its stat call (or its read) gave. */
export function statOf(address: ResourceAddress & { kind: ItemKind }, uri: string, answer: unknown): Stat {
  const stat: Stat = { uri, kind: address.kind };
  for (const [key, value] of Object.entries(FIELDS[address.kind](answer, address.values))) {
    if (value !== undefined) (stat as unknown as Record<string, unknown>)[key] = value;
  }
  return stat;
}

/** A wiki page, from its listing item or from read_wiki_page's answer. */
function wikiFields(answer: unknown): Partial<Stat> {
  const version = obj(answer, "version");
  const versions = arr(answer, "versions").length || num(answer, "versions");
  const open = num(answer, "open_merges") ??
    arr(answer, "merges").filter((merge) => str(merge, "status") === "open").length;
  return {
    title: title(str(version, "title") ?? str(answer, "title")),
    lastChange: newest(num(version, "created_at")),
    counts: { versions: versions ?? 0, openMerges: open },
  };
}
