// The opening handshake (lib/stream/ws_handshake.ts): the upgrade request byte for byte, the accept
// for RFC 6455's own example key, and every answer that is refused, each in words that name what
// the relay did.

import assert from "node:assert/strict";
import {
  acceptFor,
  checkSwitch,
  endpointOf,
  newKey,
  printable,
  readAnswerHead,
  refusalMessage,
  UpgradeError,
  upgradeRequest,
} from "../../lib/stream/ws_handshake.ts";

const encoder = new TextEncoder();
const KEY = "dGhlIHNhbXBsZSBub25jZQ==";
// RFC 6455, 1.3 (the brief that asked for this module misquoted it as "…EzfbAgGq4RE=").
const ACCEPT = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";

const head = (text: string) => readAnswerHead(encoder.encode(text.replace(/\n/g, "\r\n")));
const GOOD = `HTTP/1.1 101 Switching Protocols
Upgrade: websocket
Connection: Upgrade
Sec-WebSocket-Accept: ${ACCEPT}`;

/** The UpgradeError `answer` is refused with. */
async function refused(answer: string): Promise<UpgradeError> {
  try {
    await checkSwitch(head(answer), KEY);
  } catch (error) {
    assert.ok(error instanceof UpgradeError, `an UpgradeError, not ${error}`);
    return error;
  }
  assert.fail(`accepted: ${JSON.stringify(answer)}`);
}

Deno.test("upgradeRequest: the request, exactly, in origin form", () => {
  assert.equal(
    upgradeRequest(new URL("wss://relay.example.com/nostr?x=1&y=2#frag"), KEY),
    "GET /nostr?x=1&y=2 HTTP/1.1\r\n" +
      "Host: relay.example.com\r\n" +
      "Upgrade: websocket\r\n" +
      "Connection: Upgrade\r\n" +
      `Sec-WebSocket-Key: ${KEY}\r\n` +
      "Sec-WebSocket-Version: 13\r\n\r\n",
  );
  const host = (url: string) => /\r\nHost: ([^\r]*)\r\n/.exec(upgradeRequest(new URL(url), KEY))?.[1];
  const line = (url: string) => upgradeRequest(new URL(url), KEY).split("\r\n")[0];
  assert.equal(host("ws://relay.test:80/"), "relay.test");
  assert.equal(host("wss://relay.test:443/"), "relay.test");
  assert.equal(host("ws://relay.test:443/"), "relay.test:443");
  assert.equal(host("wss://relay.test:8443"), "relay.test:8443");
  assert.equal(host("ws://[::1]:7000/"), "[::1]:7000");
  assert.equal(line("wss://relay.test"), "GET / HTTP/1.1");
  assert.equal(line("ws://relay.test?q"), "GET /?q HTTP/1.1");
  assert.doesNotMatch(upgradeRequest(new URL("wss://relay.test/"), KEY), /Origin|Protocol|Extensions/i);
  assert.throws(
    () => upgradeRequest(new URL("https://relay.test/"), KEY),
    /https:\/\/ is not a websocket URL/,
  );
});

Deno.test("endpointOf: the host without brackets, the scheme's port, TLS for wss:", () => {
  assert.deepEqual(endpointOf(new URL("wss://relay.test/")), {
    hostname: "relay.test",
    port: 443,
    tls: true,
  });
  assert.deepEqual(endpointOf(new URL("ws://relay.test/")), { hostname: "relay.test", port: 80, tls: false });
  assert.deepEqual(endpointOf(new URL("ws://[::1]:9000/")), { hostname: "::1", port: 9000, tls: false });
  assert.throws(() => endpointOf(new URL("http://relay.test/")), TypeError);
});

Deno.test("newKey: 16 random bytes in base64; acceptFor: RFC 6455's example", async () => {
  const key = newKey();
  assert.equal(Uint8Array.fromBase64(key).length, 16);
  assert.notEqual(newKey(), key);
  assert.equal(newKey(new Uint8Array(16).fill(0xff)), "/////////////////////w==");
  assert.throws(() => newKey(new Uint8Array(15)), RangeError);
  assert.equal(await acceptFor(KEY), ACCEPT);
});

Deno.test("checkSwitch: a right answer passes, in any case and with other tokens", async () => {
  await checkSwitch(head(GOOD), KEY);
  await checkSwitch(
    head(`HTTP/1.1 101 OK
upgrade: WebSocket
connection: keep-alive, UPGRADE
sec-websocket-accept: ${ACCEPT}
Date: today`),
    KEY,
  );
});

Deno.test("checkSwitch: each wrong answer is refused, saying what is wrong", async () => {
  const without = (name: string) => GOOD.split("\n").filter((line) => !line.startsWith(name)).join("\n");
  const cases: [string, RegExp][] = [
    [
      GOOD.replace("101 Switching Protocols", "200 OK"),
      /^the relay answered the websocket upgrade with 200 OK$/,
    ],
    [GOOD.replace("HTTP/1.1", "HTTP/1.0"), /is HTTP\/1\.0, which cannot switch protocols/],
    [without("Upgrade:"), /has Upgrade: "", not websocket/],
    [GOOD.replace("Upgrade: websocket", "Upgrade: h2c"), /has Upgrade: "h2c", not websocket/],
    [GOOD.replace("Upgrade: websocket", "Upgrade: websocket\nUpgrade: h2c"), /not websocket/],
    [without("Connection:"), /lacks Connection: Upgrade/],
    [GOOD.replace("Connection: Upgrade", "Connection: keep-alive, upgraded"), /lacks Connection: Upgrade/],
    [without("Sec-WebSocket-Accept"), /lacks Sec-WebSocket-Accept/],
    [
      GOOD.replace(ACCEPT, "dGhlIHNhbXBsZSBub25jZQ=="),
      /has the wrong Sec-WebSocket-Accept "dGhlIHNhbXBsZSBub25jZQ==", not the one for our key/,
    ],
    [GOOD.replace(ACCEPT, ACCEPT.toLowerCase()), /wrong Sec-WebSocket-Accept/],
    [
      `${GOOD}\nSec-WebSocket-Extensions: permessage-deflate`,
      /names Sec-WebSocket-Extensions: "permessage-deflate", which was not offered/,
    ],
    [
      `${GOOD}\nSec-WebSocket-Protocol: nostr`,
      /names Sec-WebSocket-Protocol: "nostr", which was not offered/,
    ],
  ];
  for (const [answer, pattern] of cases) {
    const error = await refused(answer);
    assert.match(error.message, pattern, answer);
  }
  assert.equal((await refused(GOOD.replace("101 Switching Protocols", "403 Forbidden"))).status, 403);
  assert.equal((await refused(without("Connection:"))).status, 101);
});

Deno.test("readAnswerHead: malformed HTTP is an UpgradeError naming the rule", () => {
  assert.throws(() => head("SSH-2.0-OpenSSH_9.6"), (error: unknown) => {
    assert.ok(error instanceof UpgradeError);
    assert.match(
      error.message,
      /^the relay's answer to the websocket upgrade is malformed: .*not HTTP\/1\.1/,
    );
    return true;
  });
  assert.throws(() => head(`${GOOD}\n folded`), /malformed: .*obs-fold/);
  assert.throws(() => head(`${GOOD}\nBad Name: x`), /malformed header name/);
  assert.equal(head("HTTP/1.1 404").reason, "");
  assert.equal(head("HTTP/1.1 404 Not Found").reason, "Not Found");
});

Deno.test("refusalMessage: the status, the reason phrase, a redirect's target, the body's start", () => {
  const body = (text: string) => encoder.encode(text);
  assert.equal(
    refusalMessage(head("HTTP/1.1 404 Not Found\nContent-Length: 15"), body("relay not found")),
    "the relay answered the websocket upgrade with 404 Not Found: relay not found",
  );
  assert.equal(
    refusalMessage(head("HTTP/1.1 502"), new Uint8Array(0)),
    "the relay answered the websocket upgrade with 502",
  );
  assert.equal(
    refusalMessage(
      head("HTTP/1.1 301 Moved Permanently\nLocation: wss://elsewhere.test/"),
      new Uint8Array(0),
    ),
    "the relay answered the websocket upgrade with 301 Moved Permanently (to wss://elsewhere.test/)",
  );
  // Content-Length is respected; controls and runs of white space become one space.
  assert.equal(
    refusalMessage(
      head("HTTP/1.1 400 Bad Request\nContent-Length: 13"),
      body("bad\r\n\t\x00 thing...and more"),
    ),
    "the relay answered the websocket upgrade with 400 Bad Request: bad thing",
  );
  // A chunked body is read through its framing.
  assert.equal(
    refusalMessage(
      head("HTTP/1.1 426 Upgrade Required\nTransfer-Encoding: chunked"),
      body("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"),
    ),
    "the relay answered the websocket upgrade with 426 Upgrade Required: hello world",
  );
  const long = refusalMessage(head("HTTP/1.1 500 Oops"), body("é".repeat(1000)));
  assert.equal(long, `the relay answered the websocket upgrade with 500 Oops: ${"é".repeat(200)}…`);
});

Deno.test("printable: controls out, cut with an ellipsis", () => {
  assert.equal(printable("  a\x1b[31m\u2028b  ", 10), "a [31m b");
  assert.equal(printable("abcdef", 3), "abc…");
  assert.equal(printable("abc", 3), "abc");
});
