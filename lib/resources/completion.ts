// Completions for a template variable (`completion/complete` with a `ref/resource`): which tool
// lists the values of each variable and which already-chosen variables (`context.arguments`) it
// takes, as data; the candidates read from that tool's answer; and their ranking for what the
// person has typed: at most 100 values, prefix matches first (on the value, then on the words of
// its label), then fuzzy ones (a subsequence, or a small edit distance), stable, with `total` and
// `hasMore`. Pure.

import { isObject } from "../wire/json.ts";
import { type Kind, kindSpec, MAX_URI } from "./kinds.ts";
import { cutoffFor, editDistance, MAX_COMPARED } from "../wire/nearest.ts";
import { arr, str, tagValue } from "./fields.ts";
import { shortNpub } from "../wire/bech32.ts";

/** A value offered, with words it may also be found by (a room's name, an issue's title). */
export interface CompletionCandidate {
  value: string;
  label?: string;
}

/** The `completion` of a `completion/complete` answer. */
export interface Completion {
  values: string[];
  total: number;
  hasMore: boolean;
}

/** At most this many values are answered (the protocol's bound). */
export const MAX_VALUES = 100;
/** At most this many candidates are looked at. */
export const MAX_LOOKED_AT = 5000;
/** At most this many characters of a label are matched. */
const MAX_LABEL = 512;

/** How a tool's answer becomes candidates. */
export type Pick = "rooms" | "threads" | "owners" | "names" | "collaboration" | "wiki" | "jobs" | "files";

/** Where one variable's values come from. */
export interface CompletionSource {
  tool: string;
  /** Arguments always given. */
  fixed: Readonly<Record<string, unknown>>;
  /** Arguments from already-chosen variables: tool argument ← variable. */
  fromContext: Readonly<Record<string, string>>;
  pick: Pick;
}

const page = { limit: 100 };
const ROOMS: CompletionSource = { tool: "list_rooms", fixed: page, fromContext: {}, pick: "rooms" };
const OWNERS: CompletionSource = { tool: "list_repositories", fixed: page, fromContext: {}, pick: "owners" };
const NAMES: CompletionSource = { tool: "list_repositories", fixed: page, fromContext: {}, pick: "names" };
const inRepo = (tool: string): CompletionSource => ({
  tool,
  fixed: page,
  fromContext: { owner: "owner", repo: "name" },
  pick: "collaboration",
});

/** Each kind's variables and where their values come from. */
export const COMPLETION_SOURCES: Readonly<Record<Kind, Readonly<Record<string, CompletionSource>>>> = {
  room: { id: ROOMS },
  thread: {
    id: ROOMS,
    event: { tool: "read_room", fixed: page, fromContext: { id: "id" }, pick: "threads" },
  },
  repo: { owner: OWNERS, name: NAMES },
  issue: { owner: OWNERS, name: NAMES, id: inRepo("list_issues") },
  pull: { owner: OWNERS, name: NAMES, id: inRepo("list_pull_requests") },
  wiki: { d: { tool: "list_wiki", fixed: page, fromContext: {}, pick: "wiki" } },
  job: { id: { tool: "list_jobs", fixed: page, fromContext: {}, pick: "jobs" } },
  file: { sha256: { tool: "list_files", fixed: page, fromContext: {}, pick: "files" } },
  // The collections' variables are those of what they belong to: a room's threads, a repository's issues.
  root: {},
  rooms: {},
  threads: { id: ROOMS },
  repos: {},
  issues: { owner: OWNERS, name: NAMES },
  pulls: { owner: OWNERS, name: NAMES },
  pages: {},
  jobs: {},
  files: {},
};

/** The call that lists a variable's values, or the chosen variables it still needs (valid ones). */
export type CompletionCall = { tool: string; arguments: Record<string, unknown> } | { missing: string[] };

/** How to list the values of `variable` of `kind`, given the values already chosen. */
export function completionCall(
  kind: Kind,
  variable: string,
  context: Readonly<Record<string, string>>,
): CompletionCall | undefined {
  const source = COMPLETION_SOURCES[kind][variable];
  if (source === undefined) return undefined;
  const rules = new Map(
    kindSpec(kind).path.flatMap((s) => typeof s === "string" ? [] : [[s.variable, s.rule]]),
  );
  const args: Record<string, unknown> = { ...source.fixed };
  const missing: string[] = [];
  for (const [arg, from] of Object.entries(source.fromContext)) {
    const value = context[from];
    if (value === undefined || rules.get(from)?.problem(value) !== undefined) missing.push(from);
    else args[arg] = value;
  }
  return missing.length > 0 ? { missing } : { tool: source.tool, arguments: args };
}

function firstLine(text: string | undefined): string | undefined {
  return text?.split("\n", 1)[0].trim().slice(0, 120) || undefined;
}

/** Candidates from an answer's items, as each pick reads them. */
function picked(
  pick: Pick,
  answer: unknown,
  context: Readonly<Record<string, string>>,
): CompletionCandidate[] {
  const items = arr(answer, pick === "threads" ? "messages" : "items").filter(isObject);
  const label = (...parts: (string | undefined)[]) => parts.filter((part) => part).join(" ") || undefined;
  switch (pick) {
    case "rooms":
      return items.map((item) => ({ value: str(item, "id") ?? "", label: str(item, "name") }));
    case "threads":
      return items.filter((item) => item.kind === 11).map((item) => {
        const tags = arr(item, "tags").filter((t): t is string[] =>
          Array.isArray(t) && t.every((p) => typeof p === "string")
        );
        return {
          value: str(item, "id") ?? "",
          label: tagValue(tags, "subject") ?? firstLine(str(item, "content")),
        };
      });
    case "owners": {
      // Each owner once, found also by the names of its repositories.
      const owners = new Map<string, string[]>();
      for (const item of items) {
        const owner = str(item, "owner") ?? "";
        if (!owners.has(owner)) owners.set(owner, []);
        owners.get(owner)!.push(str(item, "identifier") ?? "");
      }
      return [...owners].map(([owner, names]) => ({
        value: owner,
        label: label(shortNpub(owner), ...names),
      }));
    }
    case "names":
      return items.filter((item) => context.owner === undefined || str(item, "owner") === context.owner)
        .map((item) => ({ value: str(item, "identifier") ?? "" }));
    case "collaboration":
      return items.map((item) => ({ value: str(item, "id") ?? "", label: str(item, "title") }));
    case "wiki":
      return items.map((item) => ({ value: str(item, "d") ?? "", label: str(item, "title") }));
    case "jobs":
      return items.map((item) => ({
        value: str(item, "id") ?? "",
        label: str(item, "subject") || firstLine(str(item, "content")),
      }));
    case "files":
      return items.map((item) => ({
        value: str(item, "sha256") ?? "",
        label: label(str(item, "type"), str(item, "name")),
      }));
  }
}

/** The candidates for `variable` of `kind` in a listing tool's answer: only values that would parse. */
export function completionCandidates(
  kind: Kind,
  variable: string,
  answer: unknown,
  context: Readonly<Record<string, string>> = {},
): CompletionCandidate[] {
  const source = COMPLETION_SOURCES[kind][variable];
  const segment = kindSpec(kind).path.find((s) => typeof s !== "string" && s.variable === variable);
  if (source === undefined || segment === undefined || typeof segment === "string") return [];
  return picked(source.pick, answer, context).filter((candidate) =>
    candidate.value !== "" && candidate.value.length <= MAX_URI && !candidate.value.includes("/") &&
    segment.rule.problem(candidate.value) === undefined
  );
}

/** Whether the letters of `typed` appear in `text` in order. */
function subsequence(typed: string, text: string): boolean {
  let at = 0;
  for (const char of text) if (char === typed[at] && ++at === typed.length) return true;
  return typed.length === 0;
}

/** The tier of a candidate for what was typed (lower is better), or undefined when it does not match. */
function tier(candidate: CompletionCandidate, typed: string): number | undefined {
  const value = candidate.value.toLowerCase();
  const label = candidate.label?.slice(0, MAX_LABEL).toLowerCase() ?? "";
  if (value === typed) return 0;
  if (value.startsWith(typed)) return 1;
  if (label.startsWith(typed) || label.split(/[^\p{L}\p{N}]+/u).some((word) => word.startsWith(typed))) {
    return 2;
  }
  if (typed.length > MAX_COMPARED) return undefined;
  if (subsequence(typed, value) || subsequence(typed, label)) return 3;
  const limit = cutoffFor(typed.length);
  const near = (text: string) =>
    text !== "" && editDistance(typed, text.slice(0, MAX_COMPARED), limit) <= limit;
  return near(value) || near(value.slice(0, typed.length)) || near(label) ? 4 : undefined;
}

/** The values offered for `typed`: best tier first, the candidates' order within a tier. */
export function rankCompletions(candidates: readonly CompletionCandidate[], typed: string): Completion {
  const wanted = typed.toLowerCase();
  const seen = new Set<string>();
  const matched: { value: string; tier: number; order: number }[] = [];
  for (const candidate of candidates.slice(0, MAX_LOOKED_AT)) {
    if (seen.has(candidate.value)) continue;
    seen.add(candidate.value);
    const rank = tier(candidate, wanted);
    if (rank !== undefined) matched.push({ value: candidate.value, tier: rank, order: matched.length });
  }
  matched.sort((a, b) => a.tier - b.tier || a.order - b.order);
  const values = matched.slice(0, MAX_VALUES).map((entry) => entry.value);
  return { values, total: matched.length, hasMore: matched.length > values.length };
}
