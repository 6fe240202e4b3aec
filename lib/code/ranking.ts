// How well each relay tool meets a tiny_search query: a small local index in the manner of
// code-mode-facts 3 and 10.9, over a tool's name, title, description and parameters, with field
// boosts, word prefixes, plurals and small typos. Bounded whatever the table holds. Pure.

import { isObject } from "../wire/json.ts";
import type { Tool } from "../wire/mcp.ts";

const MAX_TERMS = 8;
const MAX_WORD = 40;
const MAX_WORDS = 200;
const MAX_FIELD_CHARS = 8192;
const MAX_PARAMETERS = 100;
const CLOSEST = 5;
const STOP_WORDS = new Set(["a", "an", "and", "by", "for", "in", "of", "on", "or", "the", "to", "with"]);

/** Name outranks title, title description, description parameters; name and title count once, the better. */
const BOOST = { name: 5, title: 3, description: 2, parameters: 1 };
/** What the fields after a term's best one add, each. */
const OTHER_FIELDS = 0.25;
/** A match scoring under this share of the best one is left out: it met the query only in passing. */
const CUTOFF = 0.2;

/** Lower-case words of a text, bounded in number and length. */
export function words(text: string): string[] {
  const found = text.slice(0, MAX_FIELD_CHARS).toLowerCase().split(/[^\p{L}\p{N}]+/u);
  return found.filter((word) => word !== "").slice(0, MAX_WORDS).map((word) => word.slice(0, MAX_WORD));
}

/** The query's words to look for: stop words left out unless nothing else is left, at most MAX_TERMS. */
export function queryTerms(query: string): string[] {
  const all = [...new Set(words(query))];
  const kept = all.filter((term) => !STOP_WORDS.has(term));
  return (kept.length > 0 ? kept : all).slice(0, MAX_TERMS);
}

/** A plural's singular, roughly: enough that "issues" meets "issue" and "messages" "message". */
function stem(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

/**
 * The edit distance from `a` to `b` (to `b`'s closest prefix when `prefix`), or `most + 1` once it
 * is sure to exceed `most`.
 */
export function editDistance(a: string, b: string, most: number, prefix = false): number {
  if (!prefix && Math.abs(a.length - b.length) > most) return most + 1;
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    if (Math.min(...next) > most) return most + 1;
    row = next;
  }
  return Math.min(prefix ? Math.min(...row) : row[b.length], most + 1);
}

/** How well a query term meets a word: exact, a plural apart, a prefix, a small typo, a typo of a prefix. */
export function wordMatch(term: string, word: string): number {
  if (word === term) return 1;
  if (stem(word) === stem(term)) return 0.9;
  if (term.length >= 3 && word.startsWith(term)) return 0.7;
  if (term.length < 4) return 0;
  const most = term.length >= 8 ? 2 : 1;
  if (editDistance(stem(term), stem(word), most) <= most) return 0.45;
  return editDistance(term, word, most, true) <= most ? 0.35 : 0;
}

interface Indexed {
  tool: Tool;
  order: number;
  fields: Record<keyof typeof BOOST, string[]>;
}

/** The words of a tool's input-schema properties: their names and descriptions. */
function parameterText(schema: unknown): string {
  const properties = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
  const parts: string[] = [];
  for (const name of Object.keys(properties).slice(0, MAX_PARAMETERS)) {
    const about = properties[name];
    parts.push(name, isObject(about) && typeof about.description === "string" ? about.description : "");
  }
  return parts.join(" ");
}

function indexed(tool: Tool, order: number): Indexed {
  return {
    tool,
    order,
    fields: {
      name: words(tool.name),
      title: words(tool.title ?? ""),
      description: words(tool.description ?? ""),
      parameters: words(parameterText(tool.inputSchema)),
    },
  };
}

/**
 * A tool's score for the terms: for each term, its best field (each field scored by its best word,
 * boosted) and a quarter of the others, so a name outranks a description and parameters together;
 * scaled by the share of the terms met.
 */
function score(entry: Indexed, terms: string[], caches: Map<string, number>[]): number {
  let total = 0;
  let met = 0;
  terms.forEach((term, i) => {
    const best = (field: keyof typeof BOOST) => {
      let found = 0;
      for (const word of entry.fields[field]) {
        let quality = caches[i].get(word);
        if (quality === undefined) caches[i].set(word, quality = wordMatch(term, word));
        if (quality > found) found = quality;
      }
      return found * BOOST[field];
    };
    const found = [Math.max(best("name"), best("title")), best("description"), best("parameters")];
    const top = Math.max(...found);
    if (top > 0) met++;
    total += top + OTHER_FIELDS * (found[0] + found[1] + found[2] - top);
  });
  return (total * met) / terms.length;
}

/** The tools that match, best first; ties in table order. */
export function ranked(entries: readonly Tool[], query: string): Tool[] {
  const terms = queryTerms(query);
  if (terms.length === 0) return [];
  const caches = terms.map(() => new Map<string, number>());
  const whole = query.trim().toLowerCase().replace(/\s+/g, "_");
  const scored = entries.map(indexed).map((entry) => ({ entry, score: score(entry, terms, caches) }));
  const best = scored.reduce((most, { score }) => Math.max(most, score), 0);
  // A query that is a function's name puts it first, and leaves the rest to their scores.
  const named = (entry: Indexed) => (entry.tool.name.toLowerCase() === whole ? 1 : 0);
  return scored.filter(({ score }) => score > 0 && score >= best * CUTOFF)
    .sort((a, b) => named(b.entry) - named(a.entry) || b.score - a.score || a.entry.order - b.entry.order)
    .map(({ entry }) => entry.tool);
}

/** The names nearest the query's words, for an answer with no match. */
export function closestNames(entries: readonly Tool[], query: string): string[] {
  const terms = queryTerms(query);
  const distanceOf = (name: string) => {
    const candidates = [name.toLowerCase().slice(0, MAX_WORD), ...words(name)];
    let best = Infinity;
    for (const term of terms) {
      for (const word of candidates) best = Math.min(best, editDistance(term, word, MAX_WORD));
    }
    return best;
  };
  return entries.map((tool, order) => ({ name: tool.name, order, distance: distanceOf(tool.name) }))
    .sort((a, b) => a.distance - b.distance || a.order - b.order)
    .slice(0, CLOSEST)
    .map(({ name }) => name);
}
