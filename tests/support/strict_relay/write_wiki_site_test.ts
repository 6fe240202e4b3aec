// The wiki and site write tools' builders and checks (mcp_tools.go), with NIP-5A's manifest rules as
// tinyrelay's sites.ValidateManifest and sites.ParseSite have them: each refusal in the relay's words.

import assert from "node:assert/strict";
import type { NostrEvent } from "nostr-tools/pure";
import { npubEncode } from "nostr-tools/nip19";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { manifestProblem, normalizePageName, WIKI_SITE_WRITES } from "./write_wiki_site.ts";
import type { BuildContext } from "./write_kit.ts";

const NOW = 1_800_000_000;
const ME = "0a".repeat(32);
const YOU = "b2".repeat(32);
const VERSION = "c3".repeat(32);
const H1 = "d4".repeat(32);
const H2 = "e5".repeat(32);

const ctx: BuildContext = { actor: ME, now: NOW, event: () => undefined, activeGrant: () => undefined };
function built(tool: string, args: Record<string, unknown>) {
  const out = WIKI_SITE_WRITES[tool].build!(args, ctx);
  return "error" in out ? out.error : out.unsigned;
}
const ev = (kind: number, tags: string[][], content = "x"): NostrEvent => ({
  id: "0".repeat(64),
  pubkey: ME,
  created_at: NOW,
  kind,
  tags,
  content,
  sig: "",
});
const check = (tool: string, event: NostrEvent) => WIKI_SITE_WRITES[tool].check!(event, NOW);

/** A key or event id in base 36, 50 digits: how site labels spell them. */
const base36 = (hex: string) => BigInt(`0x${hex}`).toString(36).padStart(50, "0");

Deno.test("wiki page names: lowercase, spaces and separators as one hyphen, punctuation gone", () => {
  const cases: [string, string][] = [
    ["Hello World!", "hello-world"],
    ["  Getting   Started -- now_ok ", "getting-started-now-ok"],
    ["Ça va? Ω", "ça-va-ω"],
    ["---", ""],
    ["v2.0 (beta)", "v20-beta"],
  ];
  for (const [title, name] of cases) assert.equal(normalizePageName(title), name, title);
});

Deno.test("publish_wiki_page: a page name, a title and content; a fork names both its author and its version", () => {
  assert.equal(
    built("publish_wiki_page", { d: "!!", title: "T", content: "c" }),
    "d, title and content are required",
  );
  assert.equal(
    built("publish_wiki_page", { d: "Page", title: " ", content: "c" }),
    "d, title and content are required",
  );
  assert.equal(
    built("publish_wiki_page", { d: "Page", title: "T", content: "c", fork_author: YOU }),
    "a fork needs both fork_author and fork_event",
  );
  assert.deepEqual(
    built("publish_wiki_page", {
      d: "My Page",
      title: " T ",
      summary: " s ",
      content: "c",
      fork_author: YOU,
      fork_event: VERSION,
    }),
    {
      kind: 30818,
      created_at: NOW,
      tags: [["d", "my-page"], ["title", "T"], ["summary", "s"], ["a", `30818:${YOU}:my-page`, "", "fork"], [
        "e",
        VERSION,
        "",
        "fork",
      ]],
      content: "c",
    },
  );
});

Deno.test("propose_wiki_merge: a page, the destination, the source version and content; a base when given", () => {
  assert.equal(
    built("propose_wiki_merge", { d: "p", destination: YOU, content: "c" }),
    "d, destination, source and content are required",
  );
  assert.deepEqual(
    built("propose_wiki_merge", {
      d: "The Page",
      destination: YOU,
      source: VERSION,
      base: H1,
      content: "take it",
    }),
    {
      kind: 818,
      created_at: NOW,
      tags: [["a", `30818:${YOU}:the-page`], ["p", YOU], ["e", VERSION, "", "source"], ["e", H1]],
      content: "take it",
    },
  );
});

Deno.test("wiki writes: each check of a signed event, in order", () => {
  const cases: [string, NostrEvent, string | undefined][] = [
    ["publish_wiki_page", ev(30818, [["d", "page"], ["title", "T"]]), undefined],
    ["publish_wiki_page", ev(30023, []), "kind 30023 is not a wiki page"],
    [
      "publish_wiki_page",
      ev(30818, [["d", "My Page"], ["title", "T"]]),
      "the d tag must carry the normalized page name",
    ],
    ["publish_wiki_page", ev(30818, [["d", "page"]]), "the title tag and content must not be empty"],
    [
      "publish_wiki_page",
      ev(30818, [["d", "page"], ["title", "T"]], " "),
      "the title tag and content must not be empty",
    ],
    [
      "publish_wiki_page",
      ev(30818, [["d", "page"], ["title", "T"], ["e", "x", "", "defer"]]),
      "fork and defer tags must name a 30818:<author>:<page> coordinate or a version id",
    ],
    [
      "publish_wiki_page",
      ev(30818, [["d", "page"], ["title", "T"], ["a", `30023:${YOU}:p`, "", "fork"]]),
      "fork and defer tags must name a 30818:<author>:<page> coordinate or a version id",
    ],
    [
      "publish_wiki_page",
      ev(30818, [["d", "page"], ["title", "T"], ["a", "anything", "", "mention"]]),
      undefined,
    ],
    [
      "propose_wiki_merge",
      ev(818, [["a", `30818:${YOU}:p`], ["p", YOU], ["e", VERSION, "", "source"]]),
      undefined,
    ],
    ["propose_wiki_merge", ev(30818, []), "kind 30818 is not a merge request"],
    [
      "propose_wiki_merge",
      ev(818, [["a", `30818:nothex:p`]]),
      "the a tag must name the target as 30818:<destination>:<page>",
    ],
    [
      "propose_wiki_merge",
      ev(818, [["a", `30818:${YOU}:p`], ["p", ME]]),
      "the p tag must name the destination author of the a tag",
    ],
    [
      "propose_wiki_merge",
      ev(818, [["a", `30818:${YOU}:p`], ["p", YOU], ["e", VERSION]]),
      "an e tag with the source marker must name the proposed version",
    ],
    [
      "propose_wiki_merge",
      ev(818, [["a", `30818:${YOU}:p`], ["p", YOU], ["e", VERSION, "", "source"]], " "),
      "content must not be empty",
    ],
  ];
  for (const [tool, event, want] of cases) assert.equal(check(tool, event), want, `${tool}: ${want}`);
});

Deno.test("publish_site: the caller's own site, or a named site under its key; a snapshot is no label", () => {
  const paths = [["/index.html", ` ${H1.toUpperCase()} `]];
  assert.deepEqual(built("publish_site", { paths }), {
    kind: 15128,
    created_at: NOW,
    tags: [["path", "/index.html", H1]],
    content: "",
  });
  assert.deepEqual(built("publish_site", { label: npubEncode(ME), paths, expiration: NOW + 60 }), {
    kind: 15128,
    created_at: NOW,
    tags: [["path", "/index.html", H1], ["expiration", String(NOW + 60)]],
    content: "",
  });
  assert.deepEqual(built("publish_site", { label: `${base36(ME)}blog`, paths }), {
    kind: 35128,
    created_at: NOW,
    tags: [["d", "blog"], ["path", "/index.html", H1]],
    content: "",
  });
  const notALabel = "label must be your npub or a named site label under your key";
  for (const label of ["blog", `${base36(ME)}Blog`, `${base36(ME)}blog-`, `v${base36(VERSION)}`]) {
    assert.equal(built("publish_site", { label, paths }), notALabel, label);
  }
  assert.equal(
    built("publish_site", { label: npubEncode(YOU), paths }),
    `label ${npubEncode(YOU)} is not a site under your key`,
  );
  assert.equal(
    built("publish_site", { label: `${base36(YOU)}blog`, paths }),
    `label ${base36(YOU)}blog is not a site under your key`,
  );
  assert.equal(built("publish_site", { paths: [] }), "paths is required: one [path, sha256] pair per file");
  assert.equal(
    built("publish_site", { paths: [["/a.html"]] }),
    "each entry of paths is a [path, sha256] pair",
  );
  assert.equal(built("publish_site", { paths, expiration: NOW }), "expiration must be in the future");
  assert.equal(built("publish_site", { paths: [["index.html", H1]] }), "site path");
  assert.equal(built("publish_site", { paths: [["/a.html", H1], ["/a.html", H2]] }), "duplicate site path");
});

Deno.test("site manifests: NIP-5A's rules, in the relay's order", () => {
  const path = (p: string, h = H1) => ["path", p, h];
  const aggregate = (tags: string[][]) =>
    bytesToHex(sha256(new TextEncoder().encode(tags.map((t) => `${t[2]} ${t[1]}\n`).sort().join(""))));
  const two = [path("/index.html"), path("/css/site.css", H2)];
  const cases: [number, string[][], string | undefined][] = [
    [15128, two, undefined],
    [35128, [["d", "blog"], ...two], undefined],
    [15128, [["d", "blog"], ...two], "site d tag"],
    [35128, two, "site d tag"],
    [35128, [["d", "Blog"], ...two], "site d tag"],
    [15128, [], "site needs a path"],
    [15128, [path("/index")], "site path"],
    [15128, [path("/site.min.css")], "site path"],
    [15128, [path("/.html")], "site path"],
    [15128, [path("/a/../b.html")], "site path"],
    [15128, [path("/a b\t.html")], "site path"],
    [15128, [path("/a?.html")], "site path"],
    [15128, [path("/a.html", H1.toUpperCase())], "site path"],
    [15128, [["path", "/a.html", H1, "extra"]], "site path"],
    [15128, [path("/a.html"), path("/a.html", H2)], "duplicate site path"],
    [15128, [...two, ["x", aggregate(two), "aggregate"]], undefined],
    [15128, [...two, ["x", H1, "aggregate"]], "site aggregate hash"],
    [15128, [...two, ["x", aggregate(two)]], "site aggregate hash"],
    [15128, [...two, ["x", "a", "aggregate"], ["x", "b", "aggregate"]], "site x tag"],
    [15128, [...two, ["a", `15128:${YOU}:`], ["A", `35128:${YOU}:blog`]], undefined],
    [15128, [...two, ["a", `15128:${YOU}:x`], ["A", `35128:${YOU}:blog`]], "site lineage"],
    [15128, [...two, ["a", `30023:${YOU}:`], ["A", `15128:${YOU}:`]], "site lineage"],
    [15128, [...two, ["a", `15128:${YOU}:`]], "copied site lineage"],
  ];
  for (const [kind, tags, want] of cases) {
    assert.equal(manifestProblem(kind, tags), want, `${kind} ${JSON.stringify(tags)}`);
  }
  assert.equal(check("publish_site", ev(1, two)), "kind 1 is not a site manifest");
  assert.equal(check("publish_site", ev(15128, [path("/index")])), "site path");
  assert.equal(check("publish_site", ev(35128, [["d", "blog"], ...two])), undefined);
});
