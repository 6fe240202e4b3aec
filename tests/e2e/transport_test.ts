// The relay transport through the real entry point, under the flags the
// binary ships with (so inside the sandbox), against the strict relay on
// plain HTTP/1.1, on HTTP/1.1 over TLS, and over TLS offering HTTP/2 as well
// (tinyagent still speaks HTTP/1.1), trusted through DENO_CERT as a private
// CA would be (facade.md, "Relay protocol": one kept connection, nothing sent
// twice, a warm first call, proxies and private CAs, every wait bounded).

import assert from "node:assert/strict";
import { shippedFlags } from "../../scripts/shipped_flags.ts";
import { startConnectProxy } from "../support/connect_proxy.ts";
import {
  type CutHow,
  startStrictRelay,
  type StrictRelay,
  type StrictRelayOptions,
} from "../support/strict_relay/mod.ts";
import { eventually } from "../support/robustness_kit.ts";
import { type FrontMode, startStallFront } from "../support/stall_front.ts";
import { newKey, type Output, runOnce, type Tinyagent, withFacade } from "../support/tinyagent.ts";
import { HANDSHAKE_VERSIONS, TRANSPORT_PREFIX } from "../support/contract.ts";

interface Wire {
  name: string;
  relay: StrictRelayOptions;
  /** How a connection dies after the relay read the request: the cuts a runtime would resend after. */
  cuts: CutHow[];
}

const WIRES: Wire[] = [
  { name: "HTTP/1.1 keep-alive", relay: { keepAlive: true }, cuts: ["fin"] },
  { name: "HTTP/1.1 over TLS", relay: { keepAlive: true, tls: true }, cuts: ["close", "rst"] },
  {
    name: "TLS offering HTTP/2",
    relay: { tls: true, http2: true, keepAlive: true },
    cuts: ["close", "rst"],
  },
];

type Result = { isError?: boolean; content: { type: string; text?: string }[] };

async function call(facade: Tinyagent, name: string, args: Record<string, unknown> = {}): Promise<Result> {
  const answer = await facade.request("tools/call", { name, arguments: args });
  assert.ok(answer.result, JSON.stringify(answer.error));
  return answer.result as Result;
}

/** A session under the shipped flags that trusts the test CA the way a user with a private CA would. */
async function session(
  relay: StrictRelay,
  fn: (facade: Tinyagent) => Promise<void>,
  extraEnv: Record<string, string> = {},
  more: { url?: string; args?: string[] } = {},
): Promise<Output> {
  const key = newKey();
  const env: Record<string, string> = { TINY_PRIVATE_KEY: key.hex, ...extraEnv };
  if (relay.caFile) env.DENO_CERT = relay.caFile;
  return await withFacade({ relay, key, flags: shippedFlags(), env, ...more }, fn);
}

const mcpRequests = (relay: StrictRelay) => relay.requests.filter((r) => r.path.endsWith("/mcp"));

function tokensOnce(relay: StrictRelay): void {
  const ids = relay.requests.map((request) => request.auth?.id);
  assert.equal(new Set(ids).size, ids.length, "every token reached the relay at most once");
}

for (const wire of WIRES) {
  Deno.test(`${wire.name}: one kept connection, opened before the first call, nothing sent twice`, async (t) => {
    const relay = await startStrictRelay(wire.relay);
    try {
      await session(relay, async (facade) => {
        await t.step("during the handshake the connection opens and no request is sent", async () => {
          await facade.request("initialize", { protocolVersion: HANDSHAKE_VERSIONS[0], capabilities: {} });
          await eventually(() => relay.connections === 1, "the connection opened ahead of the first call");
          assert.equal(relay.requests.length, 0, "no HTTP request before the host lists or calls tools");
        });
        await t.step("a session of sequential calls goes over that one connection", async () => {
          await facade.request("tools/list", {});
          for (let i = 0; i < 5; i++) assert.equal((await call(facade, "list_rooms")).isError, false);
          assert.equal(relay.connections, 1);
          assert.deepEqual(new Set(relay.requests.map((r) => r.connection)), new Set([1]));
          assert.ok(
            relay.requests.every((r) => r.httpVersion === "1.1"),
            "HTTP/1.1, even with a relay that offers HTTP/2 by ALPN",
          );
        });
        for (const how of wire.cuts) {
          await t.step(
            `the relay runs a call and its connection dies (${how}): transport:, never resent`,
            async () => {
              assert.equal((await call(facade, "list_rooms")).isError, false);
              assert.equal((await call(facade, "list_rooms")).isError, false);
              const ran = mcpRequests(relay).length;
              relay.script({ cutAfterRun: true, how });
              const result = await call(facade, "list_rooms");
              assert.equal(result.isError, true);
              assert.ok(
                result.content[0].text!.startsWith(TRANSPORT_PREFIX),
                `a transport failure, not permission: ${result.content[0].text}`,
              );
              assert.equal(mcpRequests(relay).length, ran + 1, "the request reached the relay once");
              assert.equal((await call(facade, "list_rooms")).isError, false, "the next call succeeds");
              tokensOnce(relay);
            },
          );
        }
      });
    } finally {
      await relay.close();
    }
  });
}

for (const wire of WIRES) {
  Deno.test(`${wire.name}: a relay that closes idle connections after 1 s never fails a later call`, async () => {
    const relay = await startStrictRelay({ ...wire.relay, idleTimeoutMs: 1_000 });
    try {
      await session(relay, async (facade) => {
        assert.equal((await call(facade, "list_rooms")).isError, false);
        for (let i = 0; i < 3; i++) {
          await new Promise((resolve) => setTimeout(resolve, 1_500));
          assert.equal((await call(facade, "list_rooms")).isError, false, `call ${i + 2}, after 1.5 s idle`);
        }
        assert.equal(relay.connections, 4, "a new connection after each idle close");
        tokensOnce(relay);
      });
    } finally {
      await relay.close();
    }
  });
}

Deno.test("a private CA: trusted through DENO_CERT inside the sandbox; without it, a transport error", async (t) => {
  const relay = await startStrictRelay({ tls: true, http2: true, keepAlive: true });
  try {
    await t.step("with DENO_CERT the session works", async () => {
      await session(relay, async (facade) => {
        assert.equal((await call(facade, "list_rooms")).isError, false);
      });
    });
    await t.step("without it the certificate is refused, and said so", async () => {
      const key = newKey();
      const run = await runOnce({
        flags: shippedFlags(),
        args: ["mcp", "--relay", relay.url],
        env: { TINY_PRIVATE_KEY: key.hex },
        stdin: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_rooms"}}\n',
      });
      const answer = JSON.parse(run.stdout);
      assert.match(
        answer.result.content[0].text,
        /^transport: cannot reach https:\/\/127\.0\.0\.1:\d+\/mcp: .*certificate/i,
      );
    });
  } finally {
    await relay.close();
  }
});

Deno.test("a proxy: HTTPS_PROXY tunnels to an https relay, HTTP_PROXY carries an http one, NO_PROXY bypasses", async (t) => {
  const proxy = startConnectProxy();
  try {
    await t.step("HTTPS_PROXY: every call through one CONNECT tunnel, inside the sandbox", async () => {
      const relay = await startStrictRelay({ tls: true, http2: true, keepAlive: true });
      try {
        await session(relay, async (facade) => {
          assert.equal((await call(facade, "list_rooms")).isError, false);
          assert.equal((await call(facade, "list_rooms")).isError, false);
        }, { HTTPS_PROXY: proxy.url });
        assert.deepEqual(proxy.requests.map((r) => r.line), [`CONNECT ${relay.host} HTTP/1.1`]);
        assert.equal(relay.connections, 1);
      } finally {
        await relay.close();
      }
    });
    await t.step(
      "the sandbox holds the proxy's host:port besides the relay's, and nothing else",
      async () => {
        const run = await runOnce({
          flags: shippedFlags(),
          args: ["sandbox-check", "--relay", "https://127.0.0.1:9", "--json"],
          env: { HTTPS_PROXY: proxy.url },
        });
        assert.equal(run.code, 0, run.stdout + run.stderr);
        const report = JSON.parse(run.stdout);
        const proxyCheck = report.checks.find((check: { name: string }) => check.name.includes("the proxy"));
        assert.equal(proxyCheck.name, `connect to the proxy ${proxy.host}`);
        assert.equal(proxyCheck.pass, true);
      },
    );
    await t.step("HTTP_PROXY: a plain-http relay's requests go to the proxy in absolute form", async () => {
      const before = proxy.requests.length;
      const relay = await startStrictRelay();
      try {
        await session(relay, async (facade) => {
          assert.equal((await call(facade, "list_rooms")).isError, false);
        }, { HTTP_PROXY: proxy.url });
        const lines = proxy.requests.slice(before).map((r) => r.line);
        assert.ok(
          lines.length >= 1 && lines.every((l) => l.startsWith(`POST ${relay.origin}/mcp HTTP/1.1`)),
          lines.join(),
        );
      } finally {
        await relay.close();
      }
    });
    await t.step("NO_PROXY naming the relay's host: straight to the relay", async () => {
      const before = proxy.requests.length;
      const relay = await startStrictRelay({ tls: true });
      try {
        await session(relay, async (facade) => {
          assert.equal((await call(facade, "list_rooms")).isError, false);
        }, { HTTPS_PROXY: proxy.url, NO_PROXY: "127.0.0.1" });
        assert.equal(proxy.requests.length, before);
      } finally {
        await relay.close();
      }
    });
    await t.step("a proxy that refuses the tunnel is a transport error that names it", async () => {
      const refusing = startConnectProxy({ refuse: 403 });
      const relay = await startStrictRelay({ tls: true });
      try {
        await session(relay, async (facade) => {
          const result = await call(facade, "list_rooms");
          assert.equal(result.isError, true);
          assert.match(
            result.content[0].text!,
            /^transport: cannot reach .*the proxy http:\/\/127\.0\.0\.1:\d+ refused the tunnel: HTTP\/1\.1 403/,
          );
        }, { HTTPS_PROXY: refusing.url });
        assert.equal(relay.requests.length, 0);
      } finally {
        await relay.close();
        await refusing.close();
      }
    });
  } finally {
    await proxy.close();
  }
});

/** The one text block of a tool error. */
async function failedCall(facade: Tinyagent): Promise<string> {
  const result = await call(facade, "list_rooms");
  assert.equal(result.isError, true, JSON.stringify(result));
  return result.content[0].text!;
}

interface Stall {
  name: string;
  relay: StrictRelayOptions;
  /** The front's mode while stalled (the relay is reached straight when there is no front). */
  front?: FrontMode;
  /** Stall the CONNECT: the relay is reached through a proxy that never answers it. */
  proxy?: true;
  expected: RegExp;
  ignore?: boolean;
}

const STALLS: Stall[] = [
  {
    name: "a TCP connect that never completes (the listen queue is full)",
    relay: {},
    front: "unaccepted",
    expected:
      /^transport: cannot reach http:\/\/127\.0\.0\.1:\d+\/mcp: the TCP connection to 127\.0\.0\.1:\d+ did not open within 2 s$/,
    // Windows refuses a connection when the queue is full rather than leave it pending.
    ignore: Deno.build.os === "windows",
  },
  {
    name: "a proxy that never answers CONNECT",
    relay: { tls: true },
    proxy: true,
    expected:
      /^transport: cannot reach https:\/\/127\.0\.0\.1:\d+\/mcp: the proxy http:\/\/127\.0\.0\.1:\d+ did not answer the CONNECT for 127\.0\.0\.1:\d+ within 2 s$/,
  },
  {
    name: "a TLS port that accepts and never completes the handshake",
    relay: { tls: true },
    front: "silent",
    expected:
      /^transport: cannot reach https:\/\/127\.0\.0\.1:\d+\/mcp: the TLS handshake with 127\.0\.0\.1:\d+ did not complete within 2 s; if the relay serves plain HTTP there, use http:\/\/ in --relay$/,
  },
  {
    name: "an HTTP listener that accepts and never answers",
    relay: { keepAlive: true },
    front: "silent",
    expected: /^transport: no answer from http:\/\/127\.0\.0\.1:\d+\/mcp within 2 s$/,
  },
];

for (const stall of STALLS) {
  Deno.test({
    name: `every wait is bounded: ${stall.name}; the next call of the same session succeeds`,
    ignore: stall.ignore,
    fn: async () => {
      const relay = await startStrictRelay(stall.relay);
      const front = stall.front ? await startStallFront(relay.port, stall.front) : undefined;
      const proxy = stall.proxy ? startConnectProxy() : undefined;
      if (proxy) proxy.stallConnects = true;
      const url = front ? `${relay.scheme}://${front.host}` : relay.url;
      try {
        await session(
          relay,
          async (facade) => {
            const started = Date.now();
            assert.match(await failedCall(facade), stall.expected);
            // The table's load and the call each meet the stall once: two bounds, and nothing waits longer.
            assert.ok(Date.now() - started < 9_000, `answered after ${Date.now() - started} ms`);
            await front?.setMode("forward");
            if (proxy) proxy.stallConnects = false;
            const healed = await call(facade, "list_rooms");
            assert.equal(healed.isError, false, `the session heals: ${healed.content[0]?.text}`);
            assert.equal((await call(facade, "list_rooms")).isError, false);
          },
          proxy ? { HTTPS_PROXY: proxy.url } : {},
          { url, args: ["--timeout", "2"] },
        );
        tokensOnce(relay);
      } finally {
        await front?.close();
        await proxy?.close();
        await relay.close();
      }
    },
  });
}

Deno.test("an https:// relay URL that reaches a plain-HTTP server: a transport error that says to use http://", async (t) => {
  const relay = await startStrictRelay();
  try {
    await t.step("a server that answers the TLS greeting in HTTP: said at once", async () => {
      await session(
        relay,
        async (facade) => {
          const started = Date.now();
          assert.match(
            await failedCall(facade),
            /^transport: cannot reach https:\/\/127\.0\.0\.1:\d+\/mcp: 127\.0\.0\.1:\d+ answered in plain HTTP, not TLS: use http:\/\/ in --relay/,
          );
          assert.ok(Date.now() - started < 10_000, `answered after ${Date.now() - started} ms`);
        },
        {},
        { url: relay.url.replace("http:", "https:") },
      );
    });
    await t.step("a server that waits silently: the TLS step's bound, with the same hint", async () => {
      const front = await startStallFront(relay.port, "silent");
      try {
        await session(
          relay,
          async (facade) => {
            assert.match(
              await failedCall(facade),
              /did not complete within 2 s; if the relay serves plain HTTP/,
            );
          },
          {},
          { url: `https://${front.host}`, args: ["--timeout", "2"] },
        );
      } finally {
        await front.close();
      }
    });
  } finally {
    await relay.close();
  }
});

Deno.test("a proxy that asks for credentials (407) is named, with or without a body, and the password never shows", async (t) => {
  const relay = await startStrictRelay({ tls: true, keepAlive: true });
  try {
    await t.step("no credentials given, a squid-like 407 with a body: it says how to give them", async () => {
      const proxy = startConnectProxy({
        credentials: "agent:s3cret-pass",
        refusalBody: "<html>ERR_CACHE_ACCESS_DENIED</html>",
      });
      try {
        await session(relay, async (facade) => {
          assert.match(
            await failedCall(facade),
            /^transport: cannot reach .*: the proxy http:\/\/127\.0\.0\.1:\d+ wants credentials \(HTTP\/1\.1 407 Proxy Authentication Required\): give them in HTTPS_PROXY as http:\/\/user:password@127\.0\.0\.1:\d+$/,
          );
        }, { HTTPS_PROXY: proxy.url });
      } finally {
        await proxy.close();
      }
    });
    await t.step(
      "wrong credentials: refused, and neither the password nor its encoding is shown",
      async () => {
        const proxy = startConnectProxy({ credentials: "agent:right-pass" });
        try {
          const output = await session(relay, async (facade) => {
            assert.match(
              await failedCall(facade),
              /the proxy http:\/\/127\.0\.0\.1:\d+ refused the credentials in HTTPS_PROXY \(HTTP\/1\.1 407/,
            );
          }, { HTTPS_PROXY: proxy.url.replace("http://", "http://agent:wrong-pass@") });
          const printed = `${output.lines.join("\n")}\n${output.stderr}`;
          for (
            const secret of [
              "wrong-pass",
              "agent:wrong",
              "agent:wrong-pass".replace(/.*/, (s) => btoa(s)),
            ]
          ) {
            assert.ok(!printed.includes(secret), `${secret} appears in what tinyagent printed`);
          }
          assert.equal(proxy.tunnels, 0);
        } finally {
          await proxy.close();
        }
      },
    );
    await t.step("the right credentials: the tunnel opens", async () => {
      const proxy = startConnectProxy({ credentials: "agent:right-pass" });
      try {
        await session(relay, async (facade) => {
          assert.equal((await call(facade, "list_rooms")).isError, false);
        }, { HTTPS_PROXY: proxy.url.replace("http://", "http://agent:right-pass@") });
        assert.equal(proxy.tunnels, 1);
      } finally {
        await proxy.close();
      }
    });
  } finally {
    await relay.close();
  }
});
