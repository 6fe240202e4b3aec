// Which proxy stands between tinyagent and the relay (proxy.ts): HTTPS_PROXY
// for an https relay, HTTP_PROXY for an http one, NO_PROXY's exclusions, and
// refusals that name the variable.

import assert from "node:assert/strict";
import { bypassesProxy, proxyFor } from "../../lib/cli/proxy_settings.ts";

function env(values: Record<string, string>): (name: string) => string | undefined {
  return (name) => values[name];
}

const HTTPS_RELAY = new URL("https://relay.example.test");
const HTTP_RELAY = new URL("http://relay.example.test:8080");

Deno.test("proxyFor: which variable applies", async (t) => {
  const cases: [string, URL, Record<string, string>, string | undefined][] = [
    ["nothing set: no proxy", HTTPS_RELAY, {}, undefined],
    [
      "HTTPS_PROXY for an https relay",
      HTTPS_RELAY,
      { HTTPS_PROXY: "http://proxy.corp:3128" },
      "proxy.corp:3128",
    ],
    ["https_proxy, lowercase, first", HTTPS_RELAY, {
      https_proxy: "http://low:1",
      HTTPS_PROXY: "http://up:2",
    }, "low:1"],
    [
      "HTTP_PROXY is not used for an https relay",
      HTTPS_RELAY,
      { HTTP_PROXY: "http://proxy:3128" },
      undefined,
    ],
    ["HTTP_PROXY for an http relay", HTTP_RELAY, { HTTP_PROXY: "http://proxy:3128" }, "proxy:3128"],
    [
      "HTTPS_PROXY is not used for an http relay",
      HTTP_RELAY,
      { HTTPS_PROXY: "http://proxy:3128" },
      undefined,
    ],
    ["a proxy without a scheme is http", HTTPS_RELAY, { HTTPS_PROXY: "proxy.corp:8080" }, "proxy.corp:8080"],
    ["a proxy without a port is port 80", HTTPS_RELAY, { HTTPS_PROXY: "http://proxy.corp" }, "proxy.corp:80"],
    ["an empty value is unset", HTTPS_RELAY, { HTTPS_PROXY: "  " }, undefined],
    ["NO_PROXY naming the relay", HTTPS_RELAY, {
      HTTPS_PROXY: "http://p:1",
      NO_PROXY: "relay.example.test",
    }, undefined],
    ["no_proxy, lowercase", HTTPS_RELAY, { HTTPS_PROXY: "http://p:1", no_proxy: ".example.test" }, undefined],
    [
      "NO_PROXY naming another host",
      HTTPS_RELAY,
      { HTTPS_PROXY: "http://p:1", NO_PROXY: "other.test" },
      "p:1",
    ],
  ];
  for (const [name, url, values, netHost] of cases) {
    await t.step(name, () => {
      const result = proxyFor(url, env(values));
      assert.ok(result.ok, JSON.stringify(result));
      assert.equal(result.proxy?.netHost, netHost);
    });
  }
  await t.step("credentials become a Proxy-Authorization header and never appear in messages", () => {
    const result = proxyFor(HTTPS_RELAY, env({ HTTPS_PROXY: "http://agent:s%40cret@proxy.corp:3128" }));
    assert.ok(result.ok && result.proxy);
    assert.equal(result.proxy.authorization, `Basic ${btoa("agent:s@cret")}`);
    assert.equal(result.proxy.display, "http://proxy.corp:3128");
  });
  await t.step("an IPv6 proxy", () => {
    const result = proxyFor(HTTPS_RELAY, env({ HTTPS_PROXY: "http://[::1]:3128" }));
    assert.ok(result.ok && result.proxy);
    assert.equal(result.proxy.hostname, "::1");
    assert.equal(result.proxy.netHost, "[::1]:3128");
  });
});

Deno.test("proxyFor: a setting that cannot be used is refused, naming the variable", async (t) => {
  const cases: [string, Record<string, string>, RegExp][] = [
    ["an https:// proxy", { HTTPS_PROXY: "https://proxy:443" }, /^HTTPS_PROXY: only an http:\/\/ proxy/],
    ["a socks proxy", { https_proxy: "socks5://proxy:1080" }, /^https_proxy: only an http:\/\/ proxy/],
    ["not a URL", { HTTPS_PROXY: "http://[nope" }, /^HTTPS_PROXY is not a proxy URL$/],
  ];
  for (const [name, values, error] of cases) {
    await t.step(name, () => {
      const result = proxyFor(HTTPS_RELAY, env(values));
      assert.equal(result.ok, false);
      if (!result.ok) assert.match(result.error, error);
    });
  }
});

Deno.test("bypassesProxy: NO_PROXY entries", () => {
  const rows: [string, string, number, boolean][] = [
    ["*", "relay.example.test", 443, true],
    ["relay.example.test", "relay.example.test", 443, true],
    ["example.test", "relay.example.test", 443, true],
    [".example.test", "relay.example.test", 443, true],
    ["*.example.test", "relay.example.test", 443, true],
    ["ample.test", "relay.example.test", 443, false],
    ["relay.example.test:443", "relay.example.test", 443, true],
    ["relay.example.test:8443", "relay.example.test", 443, false],
    ["a.test, relay.example.test", "relay.example.test", 443, true],
    ["a.test b.test", "relay.example.test", 443, false],
    ["127.0.0.1", "127.0.0.1", 9443, true],
    ["localhost", "127.0.0.1", 9443, false],
    ["::1", "[::1]", 443, true],
    ["[::1]:443", "[::1]", 443, true],
    ["RELAY.EXAMPLE.TEST", "relay.example.test", 443, true],
    ["", "relay.example.test", 443, false],
  ];
  for (const [noProxy, host, port, bypassed] of rows) {
    assert.equal(
      bypassesProxy(noProxy, host, port),
      bypassed,
      `${JSON.stringify(noProxy)} vs ${host}:${port}`,
    );
  }
});
