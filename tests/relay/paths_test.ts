// relayPath (lib/relay/paths.ts), rpc-facts.md 4.1: the paths `request` and `download` may reach,
// joined under the tenant prefix with their query kept, and every refusal in the Go peer's words,
// `path must be same-origin and absolute` or `unsafe path`.

import assert from "node:assert/strict";
import { parseRelayUrl, type RelayEndpoint } from "../../lib/relay/endpoint.ts";
import { NOT_SAME_ORIGIN, relayPath, UNSAFE_PATH } from "../../lib/relay/paths.ts";

function endpoint(raw: string): RelayEndpoint {
  const parsed = parseRelayUrl(raw);
  assert.ok(parsed.ok, raw);
  return parsed.endpoint;
}

const PLAIN = endpoint("https://relay.example.test");
const TENANT = endpoint("https://relay.example.test/r/acme/");

Deno.test("the refusals are the Go peer's texts, word for word", () => {
  assert.equal(NOT_SAME_ORIGIN, "path must be same-origin and absolute");
  assert.equal(UNSAFE_PATH, "unsafe path");
});

Deno.test("accepted paths: the URL sent and signed, and the request target", async (t) => {
  const cases: [string, RelayEndpoint, string, string, string][] = [
    ["a plain origin", PLAIN, "/events", "https://relay.example.test/events", "/events"],
    ["the root", PLAIN, "/", "https://relay.example.test/", "/"],
    [
      "the tenant prefix is joined",
      TENANT,
      "/events",
      "https://relay.example.test/r/acme/events",
      "/r/acme/events",
    ],
    ["the tenant's root", TENANT, "/", "https://relay.example.test/r/acme/", "/r/acme/"],
    [
      "the query is kept as written",
      TENANT,
      "/manage/rpc?x=1&y=%20z&w=a/b",
      "https://relay.example.test/r/acme/manage/rpc?x=1&y=%20z&w=a/b",
      "/r/acme/manage/rpc?x=1&y=%20z&w=a/b",
    ],
    ["an empty query", PLAIN, "/events?", "https://relay.example.test/events?", "/events?"],
    [
      "slashes in the query are not segments",
      PLAIN,
      "/a?next=//elsewhere/./x",
      "https://relay.example.test/a?next=//elsewhere/./x",
      "/a?next=//elsewhere/./x",
    ],
    [
      "a media path",
      TENANT,
      `/media/${"ab".repeat(32)}.png`,
      `https://relay.example.test/r/acme/media/${"ab".repeat(32)}.png`,
      `/r/acme/media/${"ab".repeat(32)}.png`,
    ],
    [
      "escapes stay as written",
      PLAIN,
      "/rooms/a%20b/x%41",
      "https://relay.example.test/rooms/a%20b/x%41",
      "/rooms/a%20b/x%41",
    ],
    ["a trailing slash", PLAIN, "/rooms/", "https://relay.example.test/rooms/", "/rooms/"],
    [
      "a dot inside a segment",
      PLAIN,
      "/a.b/.hidden/c.",
      "https://relay.example.test/a.b/.hidden/c.",
      "/a.b/.hidden/c.",
    ],
    [
      "the default port is not written",
      endpoint("https://relay.example.test:443/r/acme"),
      "/events",
      "https://relay.example.test/r/acme/events",
      "/r/acme/events",
    ],
    [
      "the default port of http is not written",
      endpoint("ws://relay.example.test:80"),
      "/events",
      "http://relay.example.test/events",
      "/events",
    ],
    [
      "another port is kept in the URL, not in the target",
      endpoint("http://127.0.0.1:7777/r/acme"),
      "/events?a=1",
      "http://127.0.0.1:7777/r/acme/events?a=1",
      "/r/acme/events?a=1",
    ],
    [
      "a websocket relay URL",
      endpoint("wss://relay.example.test/t/lab"),
      "/events",
      "https://relay.example.test/t/lab/events",
      "/t/lab/events",
    ],
  ];
  for (const [name, base, path, url, target] of cases) {
    await t.step(name, () => {
      assert.deepEqual(relayPath(base, path), { ok: true, url, target });
    });
  }
});

Deno.test("not the relay's own path: path must be same-origin and absolute", async (t) => {
  const cases: [string, string][] = [
    ["empty", ""],
    ["relative", "events"],
    ["relative with a dot", "./events"],
    ["a query alone", "?x=1"],
    ["a fragment alone", "#top"],
    ["a leading space", " /events"],
    ["a backslash first", "\\events"],
    ["another host, scheme-relative", "//evil.example/x"],
    ["the relay's own host, scheme-relative", "//relay.example.test/events"],
    ["three slashes", "///events"],
    ["an absolute URL", "https://evil.example/x"],
    ["the relay's own absolute URL", "https://relay.example.test/events"],
    ["a websocket URL", "wss://relay.example.test/"],
    ["another scheme", "javascript:alert(1)"],
  ];
  for (const [name, path] of cases) {
    await t.step(name, () => {
      for (const base of [PLAIN, TENANT]) {
        assert.deepEqual(relayPath(base, path), { ok: false, error: NOT_SAME_ORIGIN });
      }
    });
  }
});

Deno.test("unsafe path: climbing out, segments a server would clean, and what a request line cannot carry", async (t) => {
  const cases: [string, string][] = [
    ["`..` as a segment", "/../x"],
    ["`..` in the middle", "/a/../b"],
    ["`..` at the end", "/a/.."],
    ["`..` alone", "/.."],
    ["`..` inside a name (raw, as the Go peer checks)", "/a..b"],
    ["`..` in the query (raw)", "/a?x=.."],
    ["`%2e%2e`", "/%2e%2e/x"],
    ["`%2E%2E`", "/a/%2E%2E"],
    ["`.%2e`", "/.%2e/x"],
    ["`%2e.`", "/a/%2e./b"],
    ["`.` as a segment", "/./x"],
    ["`.` in the middle", "/a/./b"],
    ["`.` at the end", "/a/."],
    ["`%2e` as a segment", "/a/%2e/b"],
    ["an empty segment", "/a//b"],
    ["an empty segment at the end", "/a//"],
    ["an empty segment through %2f", "/a/%2f/b"],
    ["a raw backslash", "/a\\b"],
    ["a backslash first after the slash", "/\\evil.example/x"],
    ["`%5c`", "/a%5cb"],
    ["`%5C`", "/a%5Cb"],
    ["a backslash in the query", "/a?x=\\"],
    ["a fragment", "/a#b"],
    ["a fragment after a query", "/a?x=1#b"],
    ["an empty fragment", "/a#"],
    ["a space", "/a b"],
    ["a space in the query", "/a?x=1 2"],
    ["a tab", "/a\tb"],
    ["CR LF (a header smuggled in)", "/a\r\nHost: evil.example"],
    ["a NUL", "/a\u0000"],
    ["DEL", "/a\u007f"],
    ["a C1 control", "/a\u0085"],
    ["non-ASCII", "/café"],
    ["non-ASCII in the query", "/a?q=é"],
    ["an emoji", "/😀"],
    ["a line separator", "/a\u2028b"],
    ["a broken escape", "/a%zz"],
    ["a truncated escape", "/a%4"],
    ["a bare percent", "/a%"],
    ["a bare percent before the query", "/a%?x=1"],
  ];
  for (const [name, path] of cases) {
    await t.step(name, () => {
      for (const base of [PLAIN, TENANT]) {
        assert.deepEqual(relayPath(base, path), { ok: false, error: UNSAFE_PATH }, JSON.stringify(path));
      }
    });
  }
});
