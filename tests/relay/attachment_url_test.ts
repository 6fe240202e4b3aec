// Where an upload goes (lib/relay/attachment_url.ts), rpc-facts.md 3.7: the file name's last element
// as Go's path.Base has it, query-escaped as Go's url.QueryEscape escapes it, the room path-escaped as
// Go's url.PathEscape, under the tenant prefix. The Go functions are modelled here byte by byte.

import assert from "node:assert/strict";
import { parseRelayUrl, type RelayEndpoint } from "../../lib/relay/endpoint.ts";
import { baseName, queryEscape, uploadUrl } from "../../lib/relay/attachment_url.ts";

function endpoint(raw: string): RelayEndpoint {
  const parsed = parseRelayUrl(raw);
  assert.ok(parsed.ok, raw);
  return parsed.endpoint;
}

const PLAIN = endpoint("https://relay.example.test");
const TENANT = endpoint("https://relay.example.test/r/acme");

/** Go's net/url escaping over UTF-8 bytes: letters, digits and `-_.~` kept, plus `keep`; a space per `space`. */
function goEscape(text: string, keep: string, space: string): string {
  let out = "";
  // Go sees the JSON string decoded to UTF-8, a lone surrogate as U+FFFD; TextEncoder does the same.
  for (const byte of new TextEncoder().encode(text)) {
    const char = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-_.~]/.test(char) || keep.includes(char)) out += char;
    else if (char === " ") out += space;
    else out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}
/** url.QueryEscape: every reserved character escaped, a space as `+`. */
const goQueryEscape = (text: string) => goEscape(text, "", "+");
/** url.PathEscape: one path segment, so `/`, `;`, `,` and `?` escaped and `$&+:=@` kept. */
const goPathEscape = (text: string) => goEscape(text, "$&+:=@", "%20");

Deno.test("the Go models agree with Go's documented examples", () => {
  // From the net/url documentation and its tests.
  assert.equal(goQueryEscape("my/cool+blog&about,stuff"), "my%2Fcool%2Bblog%26about%2Cstuff");
  assert.equal(goPathEscape("my/cool+blog&about,stuff"), "my%2Fcool+blog&about%2Cstuff");
  assert.equal(goQueryEscape("one two"), "one+two");
  assert.equal(goPathEscape("one two"), "one%20two");
});

Deno.test("baseName is Go's path.Base", async (t) => {
  const cases: [string, string][] = [
    ["", "."],
    ["/", "/"],
    ["//", "/"],
    ["///", "/"],
    ["a", "a"],
    ["a/b/", "b"],
    ["a/b//", "b"],
    ["a/b/c.txt", "c.txt"],
    ["/a", "a"],
    ["/tmp/report.pdf", "report.pdf"],
    [".", "."],
    ["..", ".."],
    ["dir/..", ".."],
    ["a/.", "."],
    ["my file.txt", "my file.txt"],
    ["C:\\Users\\x\\y.txt", "C:\\Users\\x\\y.txt"],
    ["a\\b/c\\d", "c\\d"],
    ["x/ ", " "],
  ];
  for (const [path, base] of cases) {
    await t.step(JSON.stringify(path), () => assert.equal(baseName(path), base));
  }
});

Deno.test("queryEscape is Go's url.QueryEscape", async (t) => {
  const cases: [string, string][] = [
    ["", ""],
    ["report.pdf", "report.pdf"],
    ["my file.txt", "my+file.txt"],
    ["-_.~", "-_.~"],
    ["!'()*", "%21%27%28%29%2A"],
    ["a+b", "a%2Bb"],
    ["100%", "100%25"],
    ["%20", "%2520"],
    ["a/b?c#d&e=f;g,h:i@j$k", "a%2Fb%3Fc%23d%26e%3Df%3Bg%2Ch%3Ai%40j%24k"],
    ['"<>\\^`{|}[]', "%22%3C%3E%5C%5E%60%7B%7C%7D%5B%5D"],
    ["tab\there\nnew", "tab%09here%0Anew"],
    ["é", "%C3%A9"],
    ["résumé ☃.txt", "r%C3%A9sum%C3%A9+%E2%98%83.txt"],
    ["😀", "%F0%9F%98%80"],
  ];
  for (const [text, escaped] of cases) {
    await t.step(JSON.stringify(text), () => {
      assert.equal(goQueryEscape(text), escaped, "the model");
      assert.equal(queryEscape(text), escaped);
    });
  }
  await t.step("every character from U+0000 to U+00FF, and some beyond", () => {
    const chars = [...Array(256).keys()].map((code) => String.fromCharCode(code));
    chars.push("\u2028", "\uffff", "\u{10ffff}", "日本");
    for (const char of chars) assert.equal(queryEscape(char), goQueryEscape(char), JSON.stringify(char));
  });
});

Deno.test("uploadUrl: <base>/rooms/<room>/attachments?filename=<base name>", async (t) => {
  const cases: [string, RelayEndpoint, string, string, string][] = [
    [
      "a plain origin",
      PLAIN,
      "general",
      "report.pdf",
      "https://relay.example.test/rooms/general/attachments?filename=report.pdf",
    ],
    [
      "a tenant prefix",
      TENANT,
      "general",
      "report.pdf",
      "https://relay.example.test/r/acme/rooms/general/attachments?filename=report.pdf",
    ],
    [
      "the last element of a path, spaces as +",
      TENANT,
      "room_1-a",
      "/home/me/my file (1).txt",
      "https://relay.example.test/r/acme/rooms/room_1-a/attachments?filename=my+file+%281%29.txt",
    ],
    [
      "an empty filename",
      PLAIN,
      "general",
      "",
      "https://relay.example.test/rooms/general/attachments?filename=.",
    ],
    [
      "a trailing slash",
      PLAIN,
      "general",
      "a/b/",
      "https://relay.example.test/rooms/general/attachments?filename=b",
    ],
    [
      "slashes alone",
      PLAIN,
      "general",
      "//",
      "https://relay.example.test/rooms/general/attachments?filename=%2F",
    ],
    [
      "a unicode name, as UTF-8",
      TENANT,
      "general",
      "docs/résumé ☃.txt",
      "https://relay.example.test/r/acme/rooms/general/attachments?filename=r%C3%A9sum%C3%A9+%E2%98%83.txt",
    ],
    [
      "the name's own query characters",
      PLAIN,
      "general",
      "a&filename=evil.txt#x",
      "https://relay.example.test/rooms/general/attachments?filename=a%26filename%3Devil.txt%23x",
    ],
    [
      "another port",
      endpoint("http://127.0.0.1:7777/r/acme"),
      "general",
      "a.png",
      "http://127.0.0.1:7777/r/acme/rooms/general/attachments?filename=a.png",
    ],
  ];
  for (const [name, base, room, filename, url] of cases) {
    await t.step(name, () => {
      assert.deepEqual(uploadUrl(base, room, filename), { url, target: url.slice(base.origin.length) });
    });
  }
  await t.step("the target is the path and query as on the request line", () => {
    assert.equal(
      uploadUrl(TENANT, "general", "a b").target,
      "/r/acme/rooms/general/attachments?filename=a+b",
    );
  });
});

Deno.test("uploadUrl: the room is one path segment, escaped as Go's url.PathEscape", async (t) => {
  const rooms = [
    "a b",
    "a/b",
    "a?b",
    "a#b",
    "a%b",
    "a;b,c",
    "é",
    "a@b",
    "a:b",
    "a$b",
    "a&b=c+d",
    "a!b",
    "a'b(c)*",
  ];
  for (const room of rooms) {
    await t.step(JSON.stringify(room), () => {
      const { url } = uploadUrl(PLAIN, room, "x.txt");
      assert.equal(url, `https://relay.example.test/rooms/${goPathEscape(room)}/attachments?filename=x.txt`);
    });
  }
});

Deno.test("a lone surrogate (a JSON \\ud800 escape) is written as U+FFFD, as the Go peer decodes it", () => {
  // A Python caller writes a file name that is not UTF-8 (surrogateescape) as "\udcff" in JSON.
  for (const filename of ["\ud800.txt", "a\udcff b.txt"]) {
    const { url } = uploadUrl(PLAIN, "general", filename);
    assert.equal(
      url,
      `https://relay.example.test/rooms/general/attachments?filename=${goQueryEscape(filename)}`,
    );
  }
  assert.equal(queryEscape("\udcff"), "%EF%BF%BD");
  assert.equal(
    uploadUrl(PLAIN, "\ud800", "x").url,
    "https://relay.example.test/rooms/%EF%BF%BD/attachments?filename=x",
  );
});
