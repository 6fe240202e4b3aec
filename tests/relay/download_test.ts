// The signed GET of a relay file (lib/relay/download.ts): the request for a same-origin path under
// the tenant, no body, its answer kept as bytes, one byte range asked when given; a path that is not
// the relay's refused as rpc's `download` refuses it; Content-Range read strictly.

import assert from "node:assert/strict";
import { contentRange, downloadRequest } from "../../lib/relay/download.ts";
import { parseRelayUrl } from "../../lib/relay/endpoint.ts";
import { NOT_SAME_ORIGIN, UNSAFE_PATH } from "../../lib/relay/paths.ts";

const parsed = parseRelayUrl("https://relay.example/r/acme");
assert.ok(parsed.ok);
const endpoint = parsed.endpoint;

Deno.test("the request: GET under the tenant, no body, bytes kept; a Range header only for a piece", () => {
  const whole = downloadRequest(endpoint, "/media/" + "a".repeat(64) + ".png");
  assert.ok(whole.ok);
  assert.deepEqual(whole.request, {
    method: "GET",
    url: `https://relay.example/r/acme/media/${"a".repeat(64)}.png`,
    target: `/r/acme/media/${"a".repeat(64)}.png`,
    headers: {},
    body: new Uint8Array(),
    binary: true,
  });
  const piece = downloadRequest(endpoint, `/files/raw?hash=${"b".repeat(64)}`, { first: 10, last: 19 });
  assert.ok(piece.ok);
  assert.deepEqual(piece.request.headers, { Range: "bytes=10-19" });
  assert.equal(piece.request.target, `/r/acme/files/raw?hash=${"b".repeat(64)}`);
  assert.deepEqual(downloadRequest(endpoint, "https://evil.example/x"), {
    ok: false,
    error: NOT_SAME_ORIGIN,
  });
  assert.deepEqual(downloadRequest(endpoint, "/media/../manage/rpc"), { ok: false, error: UNSAFE_PATH });
});

Deno.test("Content-Range: the bytes sent of how many, or for a 416 how many; anything else unread", () => {
  const cases: [string | null, unknown][] = [
    ["bytes 0-9/100", { first: 0, last: 9, size: 100 }],
    [" bytes 90-99/100 ", { first: 90, last: 99, size: 100 }],
    ["bytes */100", { size: 100 }],
    ["bytes */0", { size: 0 }],
    ["bytes 9-0/100", undefined],
    ["bytes 0-100/100", undefined],
    ["bytes 0-9/*", undefined],
    ["items 0-9/100", undefined],
    [`bytes 0-9/${"9".repeat(16)}`, undefined],
    [null, undefined],
  ];
  for (const [header, want] of cases) assert.deepEqual(contentRange(header), want, String(header));
});
