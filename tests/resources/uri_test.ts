// tiny:// URIs (lib/resources/uri.ts): every kind and collection parsed and formatted back exactly,
// spans and pages in the query, the relay's base from its URL, and every refusal with its reason
// code and the corrections that resolve — dot segments raw and encoded, %2F, %00, overlong UTF-8,
// another relay, another tenant, 100 KB, spans reversed, zero, past 15 digits.

import assert from "node:assert/strict";
import { parseRelayUrl } from "../../lib/relay/endpoint.ts";
import {
  baseUri,
  formatUri,
  kindPath,
  parseUri,
  type ResourceBase,
  resourceBase,
} from "../../lib/resources/uri.ts";

const BASE: ResourceBase = { host: "relay.example" };
const TENANT: ResourceBase = { host: "relay.example:8443", tenant: "acme" };
const ID = "ab".repeat(32);
const KEY = "cd".repeat(32);
const R = "tiny://relay.example";

function refusedWith(base: ResourceBase, uri: string) {
  const outcome = parseUri(base, uri);
  assert.ok(!outcome.ok, `${uri.slice(0, 80)} should be refused`);
  return outcome.refusal;
}

Deno.test("the base: host with a non-default port, lowercase, and the /r/<tenant> prefix", () => {
  const cases: [string, ResourceBase | string][] = [
    ["https://Relay.Example", { host: "relay.example" }],
    ["https://relay.example:443/", { host: "relay.example" }],
    ["http://127.0.0.1:8080", { host: "127.0.0.1:8080" }],
    ["wss://relay.example:8443/r/acme/", { host: "relay.example:8443", tenant: "acme" }],
    ["https://[::1]:9000/r/a%20b", { host: "[::1]:9000", tenant: "a b" }],
    ["https://relay.example/relay", "is not a tenant prefix"],
    ["https://relay.example/r/acme/more", "is not a tenant prefix"],
  ];
  for (const [url, want] of cases) {
    const parsed = parseRelayUrl(url);
    assert.ok(parsed.ok);
    const base = resourceBase(parsed.endpoint);
    if (typeof want === "string") assert.ok(!base.ok && base.error.includes(want), url);
    else assert.deepEqual(base, { ok: true, base: want }, url);
  }
  assert.equal(baseUri(TENANT), "tiny://relay.example:8443/r/acme");
  assert.equal(baseUri({ host: "h", tenant: "a b" }), "tiny://h/r/a%20b");
});

Deno.test("each kind parses to its address and formats back to the same URI", () => {
  const cases: [string, string, Record<string, string>][] = [
    [`${R}/room/general`, "room", { id: "general" }],
    [`${R}/room/dev_ops-2/thread/${ID}`, "thread", { id: "dev_ops-2", event: ID }],
    [`${R}/repo/${KEY}/tinyagent`, "repo", { owner: KEY, name: "tinyagent" }],
    [`${R}/repo/${KEY}/tiny%20agent/issue/${ID}`, "issue", { owner: KEY, name: "tiny agent", id: ID }],
    [`${R}/repo/${KEY}/x/pull/${ID}`, "pull", { owner: KEY, name: "x", id: ID }],
    [`${R}/wiki/getting-started`, "wiki", { d: "getting-started" }],
    [`${R}/wiki/caf%C3%A9%20%F0%9F%98%80`, "wiki", { d: "café 😀" }],
    [`${R}/wiki/a%21%27%28%29%2A`, "wiki", { d: "a!'()*" }],
    [`${R}/job/${ID}`, "job", { id: ID }],
    [`${R}/file/${ID}`, "file", { sha256: ID }],
  ];
  for (const [uri, kind, values] of cases) {
    const outcome = parseUri(BASE, uri);
    assert.ok(outcome.ok, uri);
    assert.deepEqual(outcome.value, {
      address: { kind, values },
      query: { as: "markdown" },
      as: "markdown",
      canonical: uri,
    });
    assert.equal(formatUri(BASE, outcome.value.address), uri);
    assert.equal(formatUri(BASE, outcome.value.address, "json"), `${uri}?as=json`);
  }
  assert.equal(kindPath({ kind: "thread", values: { id: "g", event: ID } }), `room/g/thread/${ID}`);
});

Deno.test("each collection ends in /, parses to its address and formats back", () => {
  const cases: [string, string, Record<string, string>][] = [
    [`${R}/`, "root", {}],
    [`${R}/room/`, "rooms", {}],
    [`${R}/room/general/thread/`, "threads", { id: "general" }],
    [`${R}/repo/`, "repos", {}],
    [`${R}/repo/${KEY}/tiny%20agent/issue/`, "issues", { owner: KEY, name: "tiny agent" }],
    [`${R}/repo/${KEY}/x/pull/`, "pulls", { owner: KEY, name: "x" }],
    [`${R}/wiki/`, "pages", {}],
    [`${R}/job/`, "jobs", {}],
    [`${R}/file/`, "files", {}],
    [`tiny://relay.example:8443/r/acme/`, "root", {}],
  ];
  for (const [uri, kind, values] of cases) {
    const outcome = parseUri(uri.includes("8443") ? TENANT : BASE, uri);
    assert.ok(outcome.ok, uri);
    assert.deepEqual(outcome.value.address, { kind, values }, uri);
    assert.equal(outcome.value.canonical, uri);
    assert.equal(formatUri(uri.includes("8443") ? TENANT : BASE, outcome.value.address), uri);
  }
  const paged = parseUri(BASE, `${R}/repo/?cursor=${KEY}/tinyagent`);
  assert.ok(paged.ok);
  assert.deepEqual(paged.value.query, { as: "markdown", cursor: `${KEY}/tinyagent` });
  const escaped = parseUri(BASE, `${R}/room/general/thread/?as=json&cursor=1767225600%3A${ID}`);
  assert.ok(escaped.ok);
  assert.equal(escaped.value.query.cursor, `1767225600:${ID}`);
  assert.equal(escaped.value.canonical, `${R}/room/general/thread/?as=json&cursor=1767225600:${ID}`);
  const odd = parseUri(BASE, `${R}/wiki/?cursor=a%26b%3Dc%2Bd%20e`);
  assert.ok(odd.ok && odd.value.query.cursor === "a&b=c+d e");
  assert.equal(
    odd.value.canonical,
    `${R}/wiki/?cursor=a%26b%3Dc%2Bd%20e`,
    "what would split a query, escaped",
  );
});

Deno.test("spans, stat and links: read, and written back in one order", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    [`${R}/room/general?lines=1-200`, { as: "markdown", lines: { first: 1, last: 200 } }, ""],
    [`${R}/file/${ID}?range=0-65535`, { as: "markdown", range: { first: 0, last: 65535 } }, ""],
    [`${R}/file/${ID}?lines=4801-5000`, { as: "markdown", lines: { first: 4801, last: 5000 } }, ""],
    [`${R}/room/general?lines=007-9`, { as: "markdown", lines: { first: 7, last: 9 } }, "?lines=7-9"],
    [`${R}/repo/${KEY}/x/issue/${ID}?pointer=/item/title&as=json`, {
      as: "json",
      pointer: "/item/title",
    }, "?as=json&pointer=/item/title"],
    [`${R}/wiki/a?as=json&pointer=/versions/0/a~1b~0c`, { as: "json", pointer: "/versions/0/a~1b~0c" }, ""],
    [`${R}/wiki/a?as=json&pointer=`, { as: "json", pointer: "" }, ""],
    [`${R}/wiki/a?as=json&pointer=/a%20b`, { as: "json", pointer: "/a b" }, ""],
    [`${R}/room/general?as=stat`, { as: "stat" }, ""],
    [`${R}/room/general?as=links`, { as: "links" }, ""],
    [`${R}/room/general?as=links&cursor=100`, { as: "links", cursor: "100" }, ""],
  ];
  for (const [uri, query, canonical] of cases) {
    const outcome = parseUri(BASE, uri);
    assert.ok(outcome.ok, uri);
    assert.deepEqual(outcome.value.query, query, uri);
    const plain = uri.split("?")[0];
    assert.equal(outcome.value.canonical, canonical === "" ? uri : `${plain}${canonical}`, uri);
  }
});

Deno.test("bad spans and queries: refused (bad-query), naming the ones that would do", () => {
  const F = `${R}/file/${ID}`;
  const cases: [string, string[], string][] = [
    [`${R}/room/general?lines=10-5`, [`${R}/room/general?lines=5-10`], "reversed"],
    [`${R}/room/general?lines=0-5`, [`${R}/room/general?lines=1-5`], "counted from 1"],
    [`${R}/room/general?lines=0-0`, [`${R}/room/general?lines=1-1`], "counted from 1"],
    [`${R}/room/general?lines=1-${"9".repeat(30)}`, [`${R}/room/general?lines=1-200`], "more than 15 digits"],
    [`${R}/room/general?lines=1e30-2`, [`${R}/room/general?lines=1-200`], "is not FIRST-LAST"],
    [`${R}/room/general?lines=-5`, [`${R}/room/general?lines=1-200`], "is not FIRST-LAST"],
    [`${R}/room/general?lines=1-20000`, [`${R}/room/general?lines=1-10000`], "at most 10000"],
    [`${F}?range=9-3`, [`${F}?range=3-9`], "reversed"],
    [`${F}?range=0-${10 ** 14}`, [`${F}?range=0-262143`], "at most 262144"],
    [`${F}?range=${"1".repeat(16)}-${"1".repeat(16)}`, [`${F}?range=0-65535`], "more than 15 digits"],
    [`${R}/room/general?range=0-9`, [`${R}/room/general`], "range is of a file's bytes"],
    [`${R}/room/general?pointer=/room`, [`${R}/room/general?as=json&pointer=/room`], "pointer reads into"],
    [`${R}/room/general?as=json&pointer=room`, [`${R}/room/general?as=json`], "starts with /"],
    [`${R}/room/general?as=json&pointer=/a~2b`, [`${R}/room/general?as=json`], "~0"],
    [`${R}/room/general?as=json&pointer=${"/a".repeat(65)}`, [`${R}/room/general?as=json`], "64 steps"],
    [
      `${R}/room/general?as=json&lines=1-5`,
      [`${R}/room/general?lines=1-5`, `${R}/room/general?as=json`],
      "lines",
    ],
    [`${R}/room/general?lines=1-5&as=json&pointer=/a`, [`${R}/room/general?as=json`], "one span at a time"],
    [`${R}/room/general?as=stat&lines=1-5`, [`${R}/room/general?as=stat`], "the whole resource"],
    [`${R}/room/general?cursor=abc`, [`${R}/room/general`], "a page at a time"],
    [`${R}/room/general?as=links&cursor=abc`, [`${R}/room/general?as=links`], "where the page starts"],
    [`${R}/room/?lines=1-5`, [`${R}/room/`], "list of children"],
    [`${R}/room/?as=stat`, [`${R}/room/`], "list of children"],
    [`${R}/room/?cursor=`, [`${R}/room/`], "a cursor is 1 to 1024"],
    [`${R}/room/?cursor=${"c".repeat(1025)}`, [`${R}/room/`], "a cursor is 1 to 1024"],
    [`${R}/room/general?lines=1-5&lines=1-5`, [`${R}/room/general?lines=1-5`], "twice"],
  ];
  for (const [uri, nearest, words] of cases) {
    const refusal = refusedWith(BASE, uri);
    assert.equal(refusal.reason, "bad-query", uri);
    assert.deepEqual(refusal.nearest, nearest, uri);
    assert.ok(refusal.message.includes(words), `${uri}: ${refusal.message}`);
  }
});

Deno.test("accepted variants: as=json and as=markdown, a host in capitals, escapes in lowercase hex", () => {
  const cases: [string, string, string][] = [
    [`${R}/room/general?as=json`, "json", `${R}/room/general?as=json`],
    [`${R}/room/general?as=markdown`, "markdown", `${R}/room/general`],
    [`${R}/room/general?as=js%6Fn`, "json", `${R}/room/general?as=json`],
    ["tiny://RELAY.example/room/general", "markdown", `${R}/room/general`],
    [`${R}/room/gen%65ral`, "markdown", `${R}/room/general`],
    [`${R}/wiki/caf%c3%a9`, "markdown", `${R}/wiki/caf%C3%A9`],
    [`${R}/wiki/a:b@c`, "markdown", `${R}/wiki/a%3Ab%40c`],
    [
      `tiny://relay.example:8443/r/acme/room/general`,
      "markdown",
      `tiny://relay.example:8443/r/acme/room/general`,
    ],
  ];
  for (const [uri, as, canonical] of cases) {
    const base = uri.includes("8443") ? TENANT : BASE;
    const outcome = parseUri(base, uri);
    assert.ok(outcome.ok, uri);
    assert.equal(outcome.value.as, as, uri);
    assert.equal(outcome.value.canonical, canonical, uri);
  }
});

Deno.test("refusals: each with its reason code and the nearest URIs that resolve", () => {
  const cases: [string, string, string[], string][] = [
    ["relay.example/room/general", "syntax", [], "not a URI"],
    ["https://relay.example/room/general", "scheme", [], "only tiny://"],
    ["TINY://relay.example/room/general", "scheme", [`${R}/room/general`], "lowercase"],
    ["tiny:relay.example/room/general", "syntax", [], "starts with tiny://relay.example/"],
    [`${R}/room/general#top`, "fragment", [`${R}/room/general`], "no fragment"],
    ["tiny:///room/general", "syntax", [`${R}/room/general`], "names no relay"],
    [
      "tiny://other.example/room/general",
      "other-relay",
      [`${R}/room/general`],
      "this server reads relay relay.example",
    ],
    ["tiny://evil@relay.example/room/general", "other-relay", [`${R}/room/general`], '"evil@relay.example"'],
    ["tiny://relay.example:443/room/general", "other-relay", [`${R}/room/general`], "relay.example:443"],
    [`${R}/r/acme/room/general`, "other-tenant", [`${R}/room/general`], "has no tenants"],
    [`${R}/wiki/café`, "syntax", [`${R}/wiki/caf%C3%A9`], "U+00E9 must be percent-encoded"],
    [`${R}/wiki/a b`, "syntax", [`${R}/wiki/a%20b`], "U+0020"],
    [`${R}/wiki/a"b`, "syntax", [`${R}/wiki/a%22b`], 'U+0022 (")'],
    [`${R}/wiki/a<b>`, "syntax", [`${R}/wiki/a%3Cb%3E`], "U+003C (<)"],
    [`${R}/wiki/a\\b`, "syntax", [`${R}/wiki/a%5Cb`], "U+005C"],
    [`${R}/wiki/a%20b?as=json json`, "syntax", [`${R}/wiki/a%20b?as=json`], "U+0020"],
    [`${R}/room/general/`, "unknown-kind", [`${R}/room/general`], "is not a kind path here"],
    [`${R}/room//`, "bad-segment", [`${R}/room/`], "empty segment"],
    [`${R}//room/general`, "bad-segment", [`${R}/room/general`], "empty segment"],
    [`${R}/room/general?`, "bad-query", [`${R}/room/general`], "the query is empty"],
    [`${R}/room/general?as=JSON`, "bad-query", [`${R}/room/general?as=json`], "not markdown, json, stat"],
    [`${R}/room/general?as=html`, "bad-query", [`${R}/room/general?as=json`], "not markdown, json, stat"],
    [`${R}/room/general?format=json`, "bad-query", [`${R}/room/general`], "not a parameter here"],
    [
      `${R}/room/general?as=json&as=json`,
      "bad-query",
      [`${R}/room/general?as=json`],
      "twice",
    ],
    [`${R}/room/general?as=%zz`, "bad-query", [`${R}/room/general`], "not percent-encoded"],
    [`${R}/rooms/general`, "unknown-kind", [`${R}/room/general`], "is not a kind path here"],
    [`${R}/room`, "unknown-kind", [`${R}/room/`], "room/{id}, room/{id}/thread/{event}"],
    [`${R}/rom/`, "unknown-kind", [`${R}/room/`], "room/, room/{id}/thread/"],
    [R, "unknown-kind", [`${R}/`], "names no resource"],
    [`${R}?as=json`, "unknown-kind", [`${R}/?as=json`], "lists the kinds"],
    [`${R}/room/general/threads/${ID}`, "unknown-kind", [`${R}/room/general/thread/${ID}`], "kind path"],
    [`${R}/room/General`, "bad-id", [`${R}/room/general`], "1 to 64 lowercase letters"],
    [`${R}/room/${"a".repeat(65)}`, "bad-id", [], "1 to 64"],
    [`${R}/room/%F0%9F%98%80`, "bad-id", [], "a room id"],
    [`${R}/job/${ID.toUpperCase()}`, "bad-id", [`${R}/job/${ID}`], "uppercase letters"],
    [`${R}/job/${ID.slice(1)}`, "bad-id", [], "64 lowercase hex"],
    [`${R}/file/${ID}0`, "bad-id", [], "64 lowercase hex"],
    [`${R}/repo/${KEY.toUpperCase()}/x`, "bad-id", [`${R}/repo/${KEY}/x`], "64 lowercase hex"],
  ];
  for (const [uri, reason, nearest, words] of cases) {
    const refusal = refusedWith(BASE, uri);
    assert.equal(refusal.reason, reason, uri);
    assert.deepEqual(refusal.nearest, nearest, uri);
    assert.ok(refusal.message.includes(words), `${uri}: ${refusal.message}`);
  }
});

Deno.test("an npub owner is refused, naming the same key in hex", () => {
  const npub = "npub180cvv07tjdrrgpa0j7j7tmnyl2yr6yr7l8j4s3evf6u64th6gkwsyjh6w6";
  const hex = "3bf0c63fcb93463407af97a5e5ee64fa883d107ef9e558472c4eb9aaaefa459d";
  const refusal = refusedWith(BASE, `${R}/repo/${npub}/tinyagent`);
  assert.equal(refusal.reason, "bad-id");
  assert.deepEqual(refusal.nearest, [`${R}/repo/${hex}/tinyagent`]);
});

Deno.test("dot segments never climb, raw or encoded, in any case", () => {
  for (
    const path of [
      "/room/..",
      "/room/.",
      "/../room/general",
      "/room/%2e%2e",
      "/room/%2E%2E",
      "/room/%2e%2E",
      "/room/.%2e",
      "/wiki/%2e",
      "/room/general/thread/..",
      "/repo/..%2f..%2fetc/passwd",
    ]
  ) {
    const refusal = refusedWith(BASE, `${R}${path}`);
    assert.equal(refusal.reason, "bad-segment", path);
    assert.ok(/dot segments|cannot contain \//.test(refusal.message), `${path}: ${refusal.message}`);
  }
});

Deno.test("decoding is strict: %2F, controls, format characters, broken escapes, invalid UTF-8", () => {
  const cases: [string, string][] = [
    ["/room/a%2Fb", "ids cannot contain /"],
    ["/room/a%2fb", "ids cannot contain /"],
    [`/repo/${KEY}/a%2Fb`, "ids cannot contain /"],
    ["/room/%00", "controls"],
    ["/wiki/a%0Ab", "controls"],
    ["/wiki/a%E2%80%AEb", "invisible formatting"], // U+202E, a bidi override
    ["/wiki/%EF%BB%BFa", "invisible formatting"], // a BOM
    ["/wiki/a%E2%80%A8b", "invisible formatting"], // U+2028
    ["/wiki/%C0%AE%C0%AE", "not valid UTF-8"], // overlong "."
    ["/wiki/%C0%AF", "not valid UTF-8"], // overlong "/"
    ["/wiki/%ED%A0%80", "not valid UTF-8"], // a surrogate
    ["/wiki/%FF", "not valid UTF-8"],
    ["/wiki/%E2%82", "not valid UTF-8"], // cut short
    ["/wiki/%", "not a percent-escape"],
    ["/wiki/%4", "not a percent-escape"],
    ["/wiki/%G0", "not a percent-escape"],
  ];
  for (const [path, words] of cases) {
    const refusal = refusedWith(BASE, `${R}${path}`);
    assert.equal(refusal.reason, "bad-segment", path);
    assert.ok(refusal.message.includes(words), `${path}: ${refusal.message}`);
  }
});

Deno.test("tenants: the prefix must be this relay's tenant, and is required", () => {
  const cases: [string, string[]][] = [
    ["tiny://relay.example:8443/room/general", ["tiny://relay.example:8443/r/acme/room/general"]],
    ["tiny://relay.example:8443/r/other/room/general", ["tiny://relay.example:8443/r/acme/room/general"]],
    ["tiny://relay.example:8443/r/ACME/room/general", ["tiny://relay.example:8443/r/acme/room/general"]],
  ];
  for (const [uri, nearest] of cases) {
    const refusal = refusedWith(TENANT, uri);
    assert.equal(refusal.reason, "other-tenant", uri);
    assert.deepEqual(refusal.nearest, nearest, uri);
    assert.ok(refusal.message.includes('tenant "acme"'), refusal.message);
  }
  // Another relay's host is named first, and the correction keeps the tenant.
  const other = refusedWith(TENANT, "tiny://relay.example/r/acme/room/general");
  assert.equal(other.reason, "other-relay");
  assert.deepEqual(other.nearest, ["tiny://relay.example:8443/r/acme/room/general"]);
});

Deno.test("corrections compose: a fragment and an uppercase id are both fixed in the nearest URI", () => {
  const refusal = refusedWith(BASE, `TINY://relay.example/job/${ID.toUpperCase()}#x`);
  assert.equal(refusal.reason, "fragment");
  assert.deepEqual(refusal.nearest, [`${R}/job/${ID}`]);
});

Deno.test("a URI over 2,048 characters is refused first, briefly, without echoing it", () => {
  const huge = `#TINY://other.example/${"%zz/..".repeat(20_000)}`;
  for (
    const uri of [
      huge,
      `${R}/wiki/${"a".repeat(100_000)}`,
      `${R}/wiki/${"a".repeat(2049 - `${R}/wiki/`.length)}`,
    ]
  ) {
    const refusal = refusedWith(BASE, uri);
    assert.equal(refusal.reason, "too-long");
    assert.deepEqual(refusal.nearest, []);
    assert.ok(refusal.message.length < 100, refusal.message);
    assert.ok(refusal.message.includes("2,048"));
  }
  // 2,048 characters exactly is not too long.
  const longest = `${R}/wiki/${"a".repeat(2048 - `${R}/wiki/`.length)}`;
  assert.equal(longest.length, 2048);
  assert.ok(parseUri(BASE, longest).ok);
});

Deno.test("a message never carries hidden characters from the URI, and quotes at most a short piece", () => {
  const refusal = refusedWith(BASE, `tiny://evil\u202e${"x".repeat(500)}/room/general`);
  assert.equal(refusal.reason, "other-relay");
  assert.ok(!refusal.message.includes("\u202e"));
  assert.ok(refusal.message.includes("\\u202e"));
  assert.ok(refusal.message.length < 300, refusal.message);
});
