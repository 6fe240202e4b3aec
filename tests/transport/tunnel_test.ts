// The CONNECT tunnel (lib/transport/tunnel.ts) against a loopback proxy scripted byte by byte: the
// request it writes, and every answer read into words a user can act on, without the proxy's
// password or its encoding ever in them.

import assert from "node:assert/strict";
import { type Proxy, tunnel, TunnelError } from "../../lib/transport/tunnel.ts";
import { sharedRun } from "../support/tinyagent.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const AUTHORITY = "relay.example.test:443";
const USER = "agent";
const PASSWORD = "S3cr3t-Pr0xy-Pa55";
const ENCODED = encoder.encode(`${USER}:${PASSWORD}`).toBase64();

/** What the proxy received, and how tunnel() ended: undefined for an open tunnel, else the error. */
interface Outcome {
  request: string;
  error?: Error;
}

/**
 * Runs tunnel() over a real loopback TCP connection to a proxy that reads the CONNECT head, then
 * does what `answer` says with the connection.
 */
async function throughProxy(
  answer: (conn: Deno.Conn) => Promise<void>,
  credentials = false,
): Promise<Outcome & { proxy: Proxy }> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const proxy: Proxy = {
    hostname: "127.0.0.1",
    port,
    netHost: `127.0.0.1:${port}`,
    display: `http://127.0.0.1:${port}`,
    variable: "HTTPS_PROXY",
  };
  if (credentials) proxy.authorization = `Basic ${ENCODED}`;
  const [tcp, server] = await Promise.all([Deno.connect({ hostname: "127.0.0.1", port }), listener.accept()]);
  listener.close();
  let request = "";
  const proxySide = (async () => {
    const buffer = new Uint8Array(4096);
    while (!request.includes("\r\n\r\n")) {
      const n = await server.read(buffer);
      if (n === null) return;
      request += decoder.decode(buffer.subarray(0, n));
    }
    await answer(server);
  })();
  let error: Error | undefined;
  try {
    await tunnel(tcp, AUTHORITY, proxy);
  } catch (caught) {
    error = caught as Error;
  }
  await proxySide.catch(() => {});
  for (const conn of [tcp, server]) {
    try {
      conn.close();
    } catch {
      // closed by the script
    }
  }
  return { request, error, proxy };
}

const say = (text: string) => async (conn: Deno.Conn) => {
  const bytes = encoder.encode(text);
  for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
};

function refusal(outcome: Outcome): string {
  assert.ok(outcome.error instanceof TunnelError, `a TunnelError, not ${outcome.error}`);
  return outcome.error.message;
}

/** Neither the password nor its Base64 (nor 6 characters of either in a row) is in `message`. */
function assertNoCredentials(message: string): void {
  assert.equal(sharedRun(PASSWORD, message, 6), undefined, message);
  assert.equal(sharedRun(ENCODED, message, 6), undefined, message);
}

Deno.test("the CONNECT request", async (t) => {
  await t.step("names the authority twice, and nothing else without credentials", async () => {
    const outcome = await throughProxy(say("HTTP/1.1 200 Connection Established\r\n\r\n"));
    assert.equal(outcome.error, undefined);
    assert.equal(outcome.request, `CONNECT ${AUTHORITY} HTTP/1.1\r\nHost: ${AUTHORITY}\r\n\r\n`);
  });
  await t.step("with credentials, Proxy-Authorization carries them", async () => {
    const outcome = await throughProxy(say("HTTP/1.1 200 OK\r\n\r\n"), true);
    assert.equal(outcome.error, undefined);
    assert.equal(
      outcome.request,
      `CONNECT ${AUTHORITY} HTTP/1.1\r\nHost: ${AUTHORITY}\r\nProxy-Authorization: Basic ${ENCODED}\r\n\r\n`,
    );
  });
});

Deno.test("a tunnel that opens", async (t) => {
  for (
    const head of [
      "HTTP/1.1 200 Connection Established\r\n\r\n",
      "HTTP/1.0 200 OK\r\n\r\n",
      "HTTP/1.1 200\r\n\r\n",
      "HTTP/1.1 204 No Content\r\nVia: proxy\r\n\r\n",
    ]
  ) {
    await t.step(JSON.stringify(head), async () => {
      assert.equal((await throughProxy(say(head))).error, undefined);
    });
  }
  await t.step("an answer written a byte at a time", async () => {
    const outcome = await throughProxy(async (conn) => {
      for (const byte of encoder.encode("HTTP/1.1 200 OK\r\n\r\n")) await conn.write(Uint8Array.of(byte));
    });
    assert.equal(outcome.error, undefined);
  });
});

Deno.test("a tunnel that does not open", async (t) => {
  await t.step("200 followed by bytes: answered oddly (they would come before the relay's TLS)", async () => {
    const outcome = await throughProxy(say("HTTP/1.1 200 OK\r\n\r\nHTTP/1.1 400 Bad Request\r\n\r\n"));
    assert.match(refusal(outcome), /^the proxy http:\/\/127\.0\.0\.1:\d+ answered oddly$/);
  });
  await t.step("403: refused, naming the status line", async () => {
    const outcome = await throughProxy(say("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n"));
    assert.equal(
      refusal(outcome),
      `the proxy ${outcome.proxy.display} refused the tunnel: HTTP/1.1 403 Forbidden`,
    );
  });
  await t.step("502 from an HTTP/1.0 proxy", async () => {
    const outcome = await throughProxy(say("HTTP/1.0 502 Bad Gateway\r\n\r\n"));
    assert.equal(
      refusal(outcome),
      `the proxy ${outcome.proxy.display} refused the tunnel: HTTP/1.0 502 Bad Gateway`,
    );
  });
  for (
    const [name, body] of [["without a body", ""], ["with a body, as squid sends", "<html>denied</html>"]]
  ) {
    await t.step(`407 ${name}, no credentials given: says how to give them`, async () => {
      const outcome = await throughProxy(
        say(
          `HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="p"\r\n` +
            `Content-Length: ${body.length}\r\n\r\n${body}`,
        ),
      );
      const { display, netHost } = outcome.proxy;
      assert.equal(
        refusal(outcome),
        `the proxy ${display} wants credentials (HTTP/1.1 407 Proxy Authentication Required): ` +
          `give them in HTTPS_PROXY as http://user:password@${netHost}`,
      );
    });
    await t.step(`407 ${name}, credentials given: refused, naming the variable, not its value`, async () => {
      const outcome = await throughProxy(
        say(`HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: ${body.length}\r\n\r\n${body}`),
        true,
      );
      const message = refusal(outcome);
      assert.equal(
        message,
        `the proxy ${outcome.proxy.display} refused the credentials in HTTPS_PROXY ` +
          `(HTTP/1.1 407 Proxy Authentication Required)`,
      );
      assertNoCredentials(message);
    });
  }
  await t.step(
    "407 echoing the credentials' Base64, the password, user:password: none of them shown",
    async () => {
      for (const echoed of [`${ENCODED} ${PASSWORD}`, `${USER}:${PASSWORD}`, `Basic ${ENCODED}`]) {
        const outcome = await throughProxy(say(`HTTP/1.1 407 bad ${echoed}\r\n\r\n`), true);
        const message = refusal(outcome);
        assert.match(message, /refused the credentials in HTTPS_PROXY \(HTTP\/1\.1 407 bad .*\*\*\*\)$/);
        assertNoCredentials(message);
      }
    },
  );
  await t.step("a 403 echoing the credentials: not shown either", async () => {
    const outcome = await throughProxy(say(`HTTP/1.1 403 no for ${USER}:${PASSWORD}\r\n\r\n`), true);
    const message = refusal(outcome);
    assert.match(message, /refused the tunnel: HTTP\/1\.1 403 no for \*\*\*$/);
    assertNoCredentials(message);
  });
  await t.step({
    // The whole status line is redacted before it is cut to 80 characters for the message.
    name: "the credentials echoed across the 80-character cut: no piece of them shown",
    fn: async () => {
      const pad = "x".repeat(60);
      const outcome = await throughProxy(
        say(`HTTP/1.1 407 ${pad}${ENCODED} ${pad}${PASSWORD}\r\n\r\n`),
        true,
      );
      assertNoCredentials(refusal(outcome));
      const other = await throughProxy(say(`HTTP/1.1 403 ${pad}${PASSWORD}\r\n\r\n`), true);
      assertNoCredentials(refusal(other));
    },
  });
  await t.step("an answer that is not HTTP: quoted, printable, at most 80 characters", async () => {
    const outcome = await throughProxy(say(`SSH-2.0-OpenSSH_9.6\x1b[31m${"z".repeat(200)}\r\n\r\n`));
    const message = refusal(outcome);
    assert.ok(
      message.startsWith(
        `the proxy ${outcome.proxy.display} did not answer in HTTP: "SSH-2.0-OpenSSH_9.6?[31m`,
      ),
      message,
    );
    const quoted = JSON.parse(message.slice(message.indexOf('"')));
    assert.equal(quoted.length, 80);
    // deno-lint-ignore no-control-regex -- finding control characters is the point
    assert.doesNotMatch(quoted, /[\x00-\x1f\x7f]/);
  });
  await t.step("a status line that only looks like HTTP", async () => {
    for (
      const line of ["HTTP/1.1 20 OK", "HTTP/2 200", "HTTP/1.1 2000", "http/1.1 200 OK", "HTTP/1.1 200OK"]
    ) {
      const outcome = await throughProxy(say(`${line}\r\n\r\n`));
      assert.match(refusal(outcome), /did not answer in HTTP/, line);
    }
  });
  await t.step("the proxy closing without an answer", async () => {
    const outcome = await throughProxy((conn) => Promise.resolve(conn.close()));
    assert.equal(refusal(outcome), `the proxy ${outcome.proxy.display} closed the connection`);
  });
  await t.step("the proxy closing in the middle of its head", async () => {
    const outcome = await throughProxy(async (conn) => {
      await say("HTTP/1.1 200 Conn")(conn);
      conn.close();
    });
    assert.equal(refusal(outcome), `the proxy ${outcome.proxy.display} closed the connection`);
  });
  await t.step("a head over 16 KiB: answered oddly, without waiting for its end", async () => {
    const outcome = await throughProxy(say(`HTTP/1.1 200 OK\r\nX: ${"a".repeat(20 * 1024)}`));
    assert.match(refusal(outcome), /answered oddly$/);
  });
});
