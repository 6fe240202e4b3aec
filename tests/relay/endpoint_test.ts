// `--relay`: the relay origin with an optional tenant prefix, and the exact
// URLs signed in NIP-98 `u` tags.

import assert from "node:assert/strict";
import { parseRelayUrl, type RelayEndpoint, webSocketUrl } from "../../lib/relay/endpoint.ts";

function ok(raw: string): RelayEndpoint {
  const parsed = parseRelayUrl(raw);
  assert.ok(parsed.ok, `expected ${raw} to be accepted, got ${JSON.stringify(parsed)}`);
  return parsed.endpoint;
}

function refused(raw: string): string {
  const parsed = parseRelayUrl(raw);
  assert.ok(!parsed.ok, `expected ${raw} to be refused, got ${JSON.stringify(parsed)}`);
  return parsed.error;
}

Deno.test("a plain origin", () => {
  assert.deepEqual(ok("https://relay.example.test"), {
    base: "https://relay.example.test",
    mcpUrl: "https://relay.example.test/mcp",
    manageUrl: "https://relay.example.test/manage/rpc",
    netHost: "relay.example.test:443",
    origin: "https://relay.example.test",
  });
});

Deno.test("a tenant prefix", () => {
  assert.deepEqual(ok("https://relay.example.test/r/acme"), {
    base: "https://relay.example.test/r/acme",
    mcpUrl: "https://relay.example.test/r/acme/mcp",
    manageUrl: "https://relay.example.test/r/acme/manage/rpc",
    netHost: "relay.example.test:443",
    origin: "https://relay.example.test",
  });
});

Deno.test("trailing slashes name the same relay", async (t) => {
  const cases: [string, string][] = [
    ["https://relay.example.test/", "https://relay.example.test"],
    ["https://relay.example.test//", "https://relay.example.test"],
    ["https://relay.example.test/r/acme/", "https://relay.example.test/r/acme"],
    ["https://relay.example.test/r/acme///", "https://relay.example.test/r/acme"],
    ["http://127.0.0.1:7777/r/acme/", "http://127.0.0.1:7777/r/acme"],
  ];
  for (const [raw, base] of cases) {
    await t.step(raw, () => {
      const endpoint = ok(raw);
      assert.equal(endpoint.base, base);
      assert.equal(endpoint.mcpUrl, `${base}/mcp`);
      assert.equal(endpoint.manageUrl, `${base}/manage/rpc`);
    });
  }
});

Deno.test("scheme and host are normalized to lowercase; the path is kept", () => {
  const endpoint = ok("HTTPS://Relay.Example.TEST/r/Acme");
  assert.equal(endpoint.base, "https://relay.example.test/r/Acme");
  assert.equal(endpoint.netHost, "relay.example.test:443");
});

Deno.test("netHost makes the port explicit", async (t) => {
  const cases: [string, string][] = [
    ["http://relay.example.test", "relay.example.test:80"],
    ["https://relay.example.test", "relay.example.test:443"],
    ["http://relay.example.test:80", "relay.example.test:80"],
    ["https://relay.example.test:443/r/acme", "relay.example.test:443"],
    ["http://127.0.0.1:7777", "127.0.0.1:7777"],
    ["https://relay.example.test:8443/r/acme", "relay.example.test:8443"],
    ["http://relay.example.test:443", "relay.example.test:443"],
    ["https://relay.example.test:80", "relay.example.test:80"],
    ["http://[::1]:9000", "[::1]:9000"],
    ["https://[::1]", "[::1]:443"],
  ];
  for (const [raw, netHost] of cases) {
    await t.step(raw, () => assert.equal(ok(raw).netHost, netHost));
  }
  await t.step("an explicit port stays in the URLs that are signed", () => {
    const endpoint = ok("http://127.0.0.1:7777/r/acme");
    assert.equal(endpoint.mcpUrl, "http://127.0.0.1:7777/r/acme/mcp");
    assert.equal(endpoint.origin, "http://127.0.0.1:7777");
  });
  await t.step("a default port is not written into the signed URLs", () => {
    assert.equal(ok("https://relay.example.test:443/r/acme").mcpUrl, "https://relay.example.test/r/acme/mcp");
  });
});

Deno.test("ws and wss name the same relay as http and https, as the Go peer reads them", async (t) => {
  const cases: [string, string, string][] = [
    [
      "wss://relay.example.test/r/acme/",
      "https://relay.example.test/r/acme",
      "wss://relay.example.test/r/acme",
    ],
    ["WSS://Relay.Example.TEST", "https://relay.example.test", "wss://relay.example.test"],
    ["ws://127.0.0.1:7777", "http://127.0.0.1:7777", "ws://127.0.0.1:7777"],
    ["ws://relay.example.test:80/x", "http://relay.example.test/x", "ws://relay.example.test/x"],
    ["https://relay.example.test:8443", "https://relay.example.test:8443", "wss://relay.example.test:8443"],
  ];
  for (const [raw, base, ws] of cases) {
    await t.step(raw, () => {
      const endpoint = ok(raw);
      assert.equal(endpoint.base, base);
      assert.equal(endpoint.mcpUrl, `${base}/mcp`);
      assert.equal(webSocketUrl(endpoint), ws);
    });
  }
  await t.step("their netHost is the HTTP scheme's", () => {
    assert.equal(ok("wss://relay.example.test").netHost, "relay.example.test:443");
    assert.equal(ok("ws://relay.example.test").netHost, "relay.example.test:80");
  });
  await t.step("the other rules hold for them too", () => {
    assert.match(refused("wss://alice:pw@relay.example.test"), /user name or password/);
    assert.match(refused("wss://relay.example.test/?x=1"), /query or fragment/);
  });
});

Deno.test("refusals", async (t) => {
  const cases: [string, string, RegExp][] = [
    ["ftp scheme", "ftp://relay.example.test", /http or https/],
    ["file scheme", "file:///etc/passwd", /http or https/],
    ["query", "https://relay.example.test/r/acme?tenant=x", /query or fragment/],
    ["empty query", "https://relay.example.test/?", /query or fragment/],
    ["fragment", "https://relay.example.test/r/acme#top", /query or fragment/],
    ["user name", "https://alice@relay.example.test", /user name or password/],
    ["user and password", "https://alice:hunter2@relay.example.test/r/acme", /user name or password/],
    ["not a URL", "relay.example.test", /not a URL/],
    ["empty", "", /not a URL/],
    ["words", "not a url at all", /not a URL/],
  ];
  for (const [name, raw, reason] of cases) {
    await t.step(name, () => {
      const error = refused(raw);
      assert.match(error, /^--relay: /);
      assert.match(error, reason);
    });
  }
  await t.step("a password is never echoed in the error", () => {
    const error = refused("https://alice:hunter2@relay.example.test");
    assert.ok(!error.includes("hunter2"), error);
  });
});
