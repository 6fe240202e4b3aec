// The wiki and site write tools (publish_wiki_page, propose_wiki_merge, publish_site): how tinyrelay
// builds each template and checks a signed event (mcp_tools.go), with its wiki page names
// (internal/wiki) and its NIP-5A manifest rules (internal/sites). Pure.

import type { NostrEvent } from "nostr-tools/pure";
import { decode } from "nostr-tools/nip19";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import {
  type BuildContext,
  type Built,
  expirationTag,
  hex64,
  str,
  tag,
  type Tags,
  template,
  trim,
  type WriteSpec,
} from "./write_kit.ts";
import { SHAPES } from "./write_shapes.ts";
import type { Args } from "./values.ts";

const WIKI_COORDINATE = /^30818:[0-9a-f]{64}:.+$/;
const SITE_NAME = /^[a-z0-9-]{1,13}$/;
const SITE_PATH = /^\/(?:[^/]+\/)*[^/.]+\.[^/.]+$/;

/** A title as its page's d tag: lowercase, spaces as single hyphens, punctuation and symbols gone. */
export function normalizePageName(title: string): string {
  let out = "";
  for (const c of title.toLowerCase()) {
    if (/[\s\u0085\-_]/u.test(c)) {
      if (out !== "" && !out.endsWith("-")) out += "-";
    } else if (/[\p{L}\p{Nd}\p{M}]/u.test(c)) out += c;
  }
  return out.replace(/^-+|-+$/g, "");
}

function buildPage(args: Args, ctx: BuildContext): Built {
  const d = normalizePageName(str(args, "d")),
    title = trim(str(args, "title")),
    content = str(args, "content");
  if (d === "" || title === "" || trim(content) === "") return { error: "d, title and content are required" };
  const tags: Tags = [["d", d], ["title", title]];
  const summary = trim(str(args, "summary"));
  if (summary) tags.push(["summary", summary]);
  const forkAuthor = str(args, "fork_author"), forkEvent = str(args, "fork_event");
  if ((forkAuthor === "") !== (forkEvent === "")) {
    return { error: "a fork needs both fork_author and fork_event" };
  }
  if (forkAuthor) tags.push(["a", `30818:${forkAuthor}:${d}`, "", "fork"], ["e", forkEvent, "", "fork"]);
  return template(30818, ctx.now, tags, content);
}

function checkPage(ev: NostrEvent): string | undefined {
  if (ev.kind !== 30818) return `kind ${ev.kind} is not a wiki page`;
  const d = tag(ev.tags, "d");
  if (d === "" || d !== normalizePageName(d)) return "the d tag must carry the normalized page name";
  if (trim(tag(ev.tags, "title")) === "" || trim(ev.content) === "") {
    return "the title tag and content must not be empty";
  }
  for (const t of ev.tags) {
    if (t.length < 4 || (t[3] !== "fork" && t[3] !== "defer")) continue;
    if ((t[0] === "a" && !WIKI_COORDINATE.test(t[1])) || (t[0] === "e" && !hex64(t[1]))) {
      return "fork and defer tags must name a 30818:<author>:<page> coordinate or a version id";
    }
  }
  return undefined;
}

function buildMerge(args: Args, ctx: BuildContext): Built {
  const d = normalizePageName(str(args, "d")), destination = str(args, "destination");
  const source = str(args, "source"), base = str(args, "base"), content = str(args, "content");
  if (d === "" || destination === "" || source === "" || trim(content) === "") {
    return { error: "d, destination, source and content are required" };
  }
  const tags: Tags = [["a", `30818:${destination}:${d}`], ["p", destination], ["e", source, "", "source"]];
  if (base) tags.push(["e", base]);
  return template(818, ctx.now, tags, content);
}

function checkMerge(ev: NostrEvent): string | undefined {
  if (ev.kind !== 818) return `kind ${ev.kind} is not a merge request`;
  const coordinate = tag(ev.tags, "a");
  if (!WIKI_COORDINATE.test(coordinate)) {
    return "the a tag must name the target as 30818:<destination>:<page>";
  }
  const destination = tag(ev.tags, "p");
  if (!hex64(destination) || destination !== coordinate.split(":")[1]) {
    return "the p tag must name the destination author of the a tag";
  }
  let source = "";
  for (const t of ev.tags) if (t.length >= 4 && t[0] === "e" && t[3] === "source") source = t[1];
  if (!hex64(source)) return "an e tag with the source marker must name the proposed version";
  return trim(ev.content) === "" ? "content must not be empty" : undefined;
}

/** A 50-character base-36 label as 64 hex digits, or undefined. */
function unbase36(label: string): string | undefined {
  if (!/^[0-9a-z]{50}$/.test(label)) return undefined;
  let n = 0n;
  for (const c of label) n = n * 36n + BigInt(parseInt(c, 36));
  return n < 1n << 256n ? n.toString(16).padStart(64, "0") : undefined;
}

/** A site label: an npub (the key's own site, 15128), or a named site under a key (35128). */
function parseSite(label: string): { kind: number; pubkey: string; d?: string } | undefined {
  if (label.startsWith("npub1")) {
    try {
      const decoded = decode(label as `npub1${string}`);
      if (decoded.type === "npub") return { kind: 15128, pubkey: decoded.data };
    } catch { /* not an npub: read on as a named site */ }
  }
  if (label.length < 51 || label.length > 63 || label.endsWith("-")) return undefined;
  const pubkey = unbase36(label.slice(0, 50)), d = label.slice(50);
  return pubkey && SITE_NAME.test(d) ? { kind: 35128, pubkey, d } : undefined;
}

function aggregate(paths: Tags): string {
  const lines = paths.filter((t) => t.length === 3).map((t) => `${t[2]} ${t[1]}\n`).sort();
  return bytesToHex(sha256(new TextEncoder().encode(lines.join(""))));
}

/** NIP-5A's rules for a manifest of `kind` (the relay's sites.ValidateManifest), without `invalid: `. */
export function manifestProblem(kind: number, tags: Tags): string | undefined {
  const named = (name: string) => tags.filter((t) => t.length > 0 && t[0] === name);
  const d = named("d");
  if (
    (kind === 35128 && (d.length !== 1 || !SITE_NAME.test(d[0][1] ?? ""))) ||
    (kind !== 35128 && d.length !== 0)
  ) {
    return "site d tag";
  }
  const paths = named("path");
  if (paths.length === 0) return "site needs a path";
  const seen = new Set<string>();
  for (const t of paths) {
    // deno-lint-ignore no-control-regex
    const bad = t.length !== 3 || !SITE_PATH.test(t[1]) || /[\\?#\x00-\x1f\x7f]/.test(t[1]) ||
      t[1].split("/").some((part) => part === "." || part === "..") || !hex64(t[2]);
    if (bad) return "site path";
    if (seen.has(t[1])) return "duplicate site path";
    seen.add(t[1]);
  }
  const x = named("x");
  if (x.length > 1) return "site x tag";
  if (x.length === 1 && (x[0].length !== 3 || x[0][2] !== "aggregate" || x[0][1] !== aggregate(paths))) {
    return "site aggregate hash";
  }
  const lineage = [...named("a"), ...named("A")];
  const reference = (v: string) => {
    const [k, key, name] = v.split(":");
    return v.split(":").length === 3 && hex64(key) &&
      ((k === "15128" && name === "") || (k === "35128" && SITE_NAME.test(name)));
  };
  if (lineage.some((t) => t.length !== 2 || !reference(t[1]))) return "site lineage";
  return named("a").length !== named("A").length ? "copied site lineage" : undefined;
}

function buildSite(args: Args, ctx: BuildContext): Built {
  let kind = 15128;
  const tags: Tags = [];
  const label = trim(str(args, "label"));
  if (label !== "") {
    const site = parseSite(label);
    if (!site) return { error: "label must be your npub or a named site label under your key" };
    if (site.pubkey !== ctx.actor) return { error: `label ${label} is not a site under your key` };
    kind = site.kind;
    if (site.d !== undefined) tags.push(["d", site.d]);
  }
  const pairs = Array.isArray(args.paths) ? args.paths : [];
  if (pairs.length === 0) return { error: "paths is required: one [path, sha256] pair per file" };
  for (const pair of pairs) {
    if (!Array.isArray(pair) || pair.length !== 2) {
      return { error: "each entry of paths is a [path, sha256] pair" };
    }
    const text = (v: unknown) => typeof v === "string" ? v : "";
    tags.push(["path", text(pair[0]), trim(text(pair[1])).toLowerCase()]);
  }
  const expiration = expirationTag(args, ctx.now);
  if ("error" in expiration) return expiration;
  tags.push(...expiration.tags);
  const problem = manifestProblem(kind, tags);
  return problem ? { error: problem } : template(kind, ctx.now, tags, "");
}

export const WIKI_SITE_WRITES: Record<string, WriteSpec> = {
  publish_wiki_page: { build: buildPage, check: checkPage, shape: SHAPES.wiki },
  propose_wiki_merge: { build: buildMerge, check: checkMerge, shape: SHAPES.merge },
  publish_site: {
    build: buildSite,
    check: (ev) =>
      ev.kind !== 15128 && ev.kind !== 35128
        ? `kind ${ev.kind} is not a site manifest`
        : manifestProblem(ev.kind, ev.tags),
    shape: SHAPES.site,
  },
};
