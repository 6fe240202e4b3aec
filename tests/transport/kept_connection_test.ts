// The relay transport (lib/transport/kept_connection.ts) with scripted dials and peers: one kept
// connection for sequential calls, a request the relay cannot have read sent once more on a new
// connection with a fresh token, one it may have read never sent again, and a dial that stalls
// named by its step and given up with the call that waited for it.

import assert from "node:assert/strict";
import type { DialOptions, DialTarget, Duplex } from "../../lib/transport/dial.ts";
import { RelayTransport, type UnsignedRequest } from "../../lib/transport/kept_connection.ts";
import type { Attempt } from "../../lib/transport/exchange.ts";
import { latin1Bytes, ScriptedConn } from "../support/scripted_conn.ts";

const ORIGIN = new URL("https://relay.example.test");
const MAX = 1024 * 1024;

function latin1(bytes: Uint8Array): string {
  return String.fromCharCode(...bytes);
}

/** One request as the peer read it. */
interface Received {
  line: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * What the peer does with a request: answer these bytes, answer them and close, close without
 * answering, or say nothing.
 */
type Reply = string | readonly [string, "cut"] | "cut" | "silent";

const ok = (body = "ok", extra = "") =>
  `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n${extra}\r\n${body}`;

/** A relay at the other end of one connection, answering each whole request as `reply` says. */
class Peer implements Duplex {
  readonly received: Received[] = [];
  closed = false;
  #inbox = new ScriptedConn([], "stall");
  #pending = "";

  constructor(readonly reply: (request: Received) => Reply = () => ok(), readonly failWrites = false) {}

  read(buffer: Uint8Array): Promise<number | null> {
    return this.#inbox.read(buffer);
  }

  write(bytes: Uint8Array): Promise<number> {
    if (this.closed) return Promise.reject(new Deno.errors.BadResource("closed"));
    if (this.failWrites) return Promise.reject(new Deno.errors.BrokenPipe("broken pipe"));
    this.#pending += latin1(bytes);
    for (;;) {
      const end = this.#pending.indexOf("\r\n\r\n");
      if (end === -1) break;
      const [line, ...fields] = this.#pending.slice(0, end).split("\r\n");
      const headers = Object.fromEntries(
        fields.map((f) => [f.slice(0, f.indexOf(":")), f.slice(f.indexOf(":") + 2)]),
      );
      const length = Number(headers["Content-Length"] ?? 0);
      if (this.#pending.length < end + 4 + length) break;
      const request = { line, headers, body: this.#pending.slice(end + 4, end + 4 + length) };
      this.#pending = this.#pending.slice(end + 4 + length);
      this.received.push(request);
      const reply = this.reply(request);
      if (typeof reply !== "string") {
        this.#inbox.push(latin1Bytes(reply[0]));
        this.#inbox.end();
      } else if (reply === "cut") this.#inbox.end();
      else if (reply !== "silent") this.#inbox.push(latin1Bytes(reply));
    }
    return Promise.resolve(bytes.length);
  }

  /** The relay closes the idle connection. */
  hangUp(): void {
    this.#inbox.end();
  }

  close(): void {
    this.closed = true;
    this.#inbox.close();
  }
}

/** The transport's dial, scripted: each call takes the next step (a peer, or a dial to run). */
class Dialer {
  readonly calls: { target: DialTarget; options: DialOptions }[] = [];
  readonly steps: (Peer | ((options: DialOptions) => Promise<Duplex>))[] = [];

  readonly dial = (target: DialTarget, options: DialOptions): Promise<Duplex> => {
    this.calls.push({ target, options });
    const step = this.steps.shift() ?? new Peer();
    if (step instanceof Peer) {
      options.onStage?.("connect");
      return Promise.resolve(step);
    }
    return step(options);
  };
}

/** A request whose every authorize() is a new token: t1, t2, … */
function request(body = '{"jsonrpc":"2.0"}'): UnsignedRequest & { tokens: string[] } {
  const tokens: string[] = [];
  return {
    target: "/mcp",
    headers: { "Content-Type": "application/json" },
    body: new TextEncoder().encode(body),
    tokens,
    authorize() {
      tokens.push(`Nostr t${tokens.length + 1}`);
      return Promise.resolve(tokens.at(-1)!);
    },
  };
}

function answered(attempt: Attempt): string {
  assert.ok(attempt.ok, `an answer, not ${JSON.stringify(attempt)}`);
  return attempt.answer.body;
}

const never = () => new AbortController().signal;

/** A dial that tells its steps and then waits until it is given up, when it rejects as dial() does. */
function stallingDial(stages: ("connect" | "proxy" | "tls")[]) {
  return (options: DialOptions) => {
    for (const stage of stages) options.onStage?.(stage);
    return new Promise<Duplex>((_, reject) => {
      options.signal?.addEventListener("abort", () => reject(new Error("the attempt was given up")), {
        once: true,
      });
    });
  };
}

Deno.test("the target and the head come from the origin", async (t) => {
  const cases: [string, string, DialTarget, string][] = [
    ["https, default port", "https://relay.example.test", {
      hostname: "relay.example.test",
      port: 443,
      tls: true,
      proxy: undefined,
    }, "relay.example.test"],
    ["http, a port", "http://127.0.0.1:8080", {
      hostname: "127.0.0.1",
      port: 8080,
      tls: false,
      proxy: undefined,
    }, "127.0.0.1:8080"],
    ["IPv6, brackets dropped for the dial", "https://[::1]:8443", {
      hostname: "::1",
      port: 8443,
      tls: true,
      proxy: undefined,
    }, "[::1]:8443"],
  ];
  for (const [name, origin, target, host] of cases) {
    await t.step(name, async () => {
      const dialer = new Dialer();
      const peer = new Peer();
      dialer.steps.push(peer);
      const transport = new RelayTransport({ origin: new URL(origin), dial: dialer.dial, stepMs: 1234 });
      answered(await transport.send(request(), never(), MAX));
      assert.deepEqual(dialer.calls[0].target, target);
      assert.equal(dialer.calls[0].options.stepMs, 1234);
      assert.equal(peer.received[0].line, "POST /mcp HTTP/1.1");
      assert.equal(peer.received[0].headers.Host, host);
      transport.close();
    });
  }
  await t.step("an http relay through a proxy: the request line carries the absolute URL", async () => {
    const dialer = new Dialer();
    const peer = new Peer();
    dialer.steps.push(peer);
    const proxy = {
      hostname: "127.0.0.1",
      port: 3128,
      netHost: "127.0.0.1:3128",
      display: "http://127.0.0.1:3128",
      variable: "HTTP_PROXY",
    };
    const transport = new RelayTransport({
      origin: new URL("http://relay.test:8080"),
      proxy,
      dial: dialer.dial,
    });
    answered(await transport.send(request(), never(), MAX));
    assert.equal(dialer.calls[0].target.proxy, proxy);
    assert.equal(peer.received[0].line, "POST http://relay.test:8080/mcp HTTP/1.1");
    transport.close();
  });
});

Deno.test("one kept connection for sequential sends, each with its own token", async () => {
  const dialer = new Dialer();
  const peer = new Peer((r) => ok(`answer to ${r.headers.Authorization}`));
  dialer.steps.push(peer);
  const transport = new RelayTransport({ origin: ORIGIN, dial: dialer.dial });
  for (let i = 1; i <= 3; i++) {
    const sent = request();
    assert.equal(answered(await transport.send(sent, never(), MAX)), "answer to Nostr t1");
    assert.deepEqual(sent.tokens, ["Nostr t1"], "one token per attempt");
  }
  assert.equal(dialer.calls.length, 1);
  assert.equal(transport.opened, 1);
  assert.equal(peer.received.length, 3);
  transport.close();
  assert.equal(peer.closed, true, "close() closes the kept connection");
});

Deno.test("warm() opens the connection the first send then uses", async () => {
  const dialer = new Dialer();
  const transport = new RelayTransport({ origin: ORIGIN, dial: dialer.dial });
  transport.warm();
  assert.equal(dialer.calls.length, 1, "dialled ahead of any request");
  answered(await transport.send(request(), never(), MAX));
  assert.equal(dialer.calls.length, 1);
  transport.close();
});

Deno.test("a warm() that fails is met again by the first send, which dials afresh", async () => {
  const dialer = new Dialer();
  dialer.steps.push(() => Promise.reject(new Deno.errors.ConnectionRefused("refused")));
  const transport = new RelayTransport({ origin: ORIGIN, dial: dialer.dial });
  transport.warm();
  await new Promise((resolve) => setTimeout(resolve, 0));
  answered(await transport.send(request(), never(), MAX));
  assert.equal(dialer.calls.length, 2);
  transport.close();
});

Deno.test("a request the relay cannot have read goes once more, on a new connection, with a new token", async (t) => {
  await t.step("the write fails: a second connection, a second token", async () => {
    const dialer = new Dialer();
    const broken = new Peer(undefined, true);
    const good = new Peer((r) => ok(r.headers.Authorization));
    dialer.steps.push(broken, good);
    const transport = new RelayTransport({ origin: ORIGIN, dial: dialer.dial });
    const sent = request();
    assert.equal(answered(await transport.send(sent, never(), MAX)), "Nostr t2");
    assert.deepEqual(sent.tokens, ["Nostr t1", "Nostr t2"]);
    assert.equal(dialer.calls.length, 2);
    assert.equal(broken.closed, true, "the failed connection is dropped");
    assert.equal(good.received.length, 1);
    transport.close();
  });
  await t.step("only once: a second failure is the answer", async () => {
    const dialer = new Dialer();
    dialer.steps.push(new Peer(undefined, true), new Peer(undefined, true), new Peer());
    const transport = new RelayTransport({ origin: ORIGIN, dial: dialer.dial });
    const sent = request();
    const attempt = await transport.send(sent, never(), MAX);
    assert.deepEqual(attempt, {
      ok: false,
      unsent: true,
      detail: "the connection closed while the request was written",
    });
    assert.equal(sent.tokens.length, 2);
    assert.equal(dialer.calls.length, 2, "no third connection");
    transport.close();
  });
  await t.step("the kept connection was closed by the relay while idle: a new one, one token", async () => {
    const dialer = new Dialer();
    const first = new Peer();
    const second = new Peer();
    dialer.steps.push(first, second);
    const transport = new RelayTransport({ origin: ORIGIN, dial: dialer.dial });
    answered(await transport.send(request(), never(), MAX));
    first.hangUp();
    await new Promise((resolve) => setTimeout(resolve, 0)); // the idle read sees the end
    const sent = request();
    answered(await transport.send(sent, never(), MAX));
    assert.deepEqual(sent.tokens, ["Nostr t1"]);
    assert.equal(dialer.calls.length, 2);
    assert.equal(first.received.length, 1, "nothing was written to the closed connection");
    assert.equal(second.received.length, 1);
    transport.close();
  });
});

Deno.test("a request the relay may have read is never sent again", async (t) => {
  for (
    const [name, reply, detail] of [
      ["cut before any answer", "cut", /closed the connection before any answer/],
      [
        "cut in the middle of the answer",
        ["HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", "cut"],
        /in the middle of the answer/,
      ],
      ["a malformed answer", "HTTP/9 200 OK\r\n\r\n", /not HTTP\/1\.1/],
    ] as const
  ) {
    await t.step(name, async () => {
      const dialer = new Dialer();
      const peer = new Peer(() => reply);
      dialer.steps.push(peer);
      const transport = new RelayTransport({ origin: ORIGIN, dial: dialer.dial });
      const sent = request();
      const attempt = await transport.send(sent, never(), MAX);
      assert.ok(!attempt.ok && !attempt.unsent, JSON.stringify(attempt));
      assert.match(attempt.detail, detail);
      assert.equal(sent.tokens.length, 1, "one token");
      assert.equal(dialer.calls.length, 1, "no second connection");
      assert.equal(peer.received.length, 1, "written once");
      assert.equal(peer.closed, true, "a connection whose exchange did not end whole is closed");
      // The next call dials afresh.
      answered(await transport.send(request(), never(), MAX));
      assert.equal(dialer.calls.length, 2);
      transport.close();
    });
  }
  await t.step("a call given up while the relay runs it: not sent again either", async () => {
    const dialer = new Dialer();
    const peer = new Peer(() => "silent");
    dialer.steps.push(peer);
    const transport = new RelayTransport({ origin: ORIGIN, dial: dialer.dial });
    const controller = new AbortController();
    const sent = request();
    const pending = transport.send(sent, controller.signal, MAX);
    await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    const attempt = await pending;
    assert.ok(!attempt.ok, JSON.stringify(attempt));
    assert.equal(sent.tokens.length, 1);
    assert.equal(dialer.calls.length, 1);
    assert.equal(peer.closed, true);
    transport.close();
  });
});

Deno.test("stalled(): while a dial is pending, the step it is in", async () => {
  const dialer = new Dialer();
  dialer.steps.push(stallingDial(["connect", "tls"]));
  const transport = new RelayTransport({ origin: ORIGIN, dial: dialer.dial });
  assert.equal(transport.stalled(2000), undefined, "no dial yet");
  const controller = new AbortController();
  const pending = transport.send(request(), controller.signal, MAX);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(
    transport.stalled(2000),
    "the TLS handshake with relay.example.test:443 did not complete within 2 s; " +
      "if the relay serves plain HTTP there, use http:// in --relay",
  );
  controller.abort();
  await assert.rejects(pending);
  assert.equal(transport.stalled(2000), undefined, "nothing is being opened once it was given up");
  transport.close();
});

Deno.test("an aborted send gives up the dial it waited for; the next send dials afresh", async (t) => {
  await t.step("the dial is told to give up, and the next send does not inherit it", async () => {
    const dialer = new Dialer();
    dialer.steps.push(stallingDial(["connect"]));
    const transport = new RelayTransport({ origin: ORIGIN, dial: dialer.dial });
    const controller = new AbortController();
    const first = transport.send(request(), controller.signal, MAX);
    await new Promise((resolve) => setTimeout(resolve, 0));
    const signal = dialer.calls[0].options.signal!;
    assert.equal(signal.aborted, false);
    controller.abort();
    assert.equal(signal.aborted, true, "the pending dial is given up with the call");
    await assert.rejects(first);
    const sent = request();
    answered(await transport.send(sent, never(), MAX));
    assert.equal(dialer.calls.length, 2, "a fresh dial");
    assert.deepEqual(sent.tokens, ["Nostr t1"]);
    transport.close();
  });
  await t.step("a connection that opens after its dial was given up is closed, never kept", async () => {
    const dialer = new Dialer();
    const late = new Peer();
    let open!: () => void;
    dialer.steps.push(() => new Promise<Duplex>((resolve) => open = () => resolve(late)));
    const transport = new RelayTransport({ origin: ORIGIN, dial: dialer.dial });
    const controller = new AbortController();
    const first = transport.send(request(), controller.signal, MAX);
    await new Promise((resolve) => setTimeout(resolve, 0));
    controller.abort();
    open();
    await first.catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(late.closed, true, "the late connection is closed");
    assert.equal(late.received.length, 0);
    answered(await transport.send(request(), never(), MAX));
    assert.equal(dialer.calls.length, 2);
    transport.close();
  });
});

Deno.test("an idle connection is given up before the relay would close it", async (t) => {
  await t.step("after maxIdleMs, the next send dials afresh", async () => {
    const dialer = new Dialer();
    const first = new Peer();
    dialer.steps.push(first, new Peer());
    const transport = new RelayTransport({ origin: ORIGIN, dial: dialer.dial, maxIdleMs: 30 });
    answered(await transport.send(request(), never(), MAX));
    await new Promise((resolve) => setTimeout(resolve, 60));
    answered(await transport.send(request(), never(), MAX));
    assert.equal(dialer.calls.length, 2);
    assert.equal(first.closed, true, "the idle one is closed");
    transport.close();
  });
  await t.step("a relay's Keep-Alive timeout, less a second, wins over a longer maxIdleMs", async () => {
    const dialer = new Dialer();
    dialer.steps.push(new Peer(() => ok("ok", "Keep-Alive: timeout=1\r\n")), new Peer());
    const transport = new RelayTransport({ origin: ORIGIN, dial: dialer.dial, maxIdleMs: 60_000 });
    answered(await transport.send(request(), never(), MAX));
    await new Promise((resolve) => setTimeout(resolve, 20));
    answered(await transport.send(request(), never(), MAX));
    assert.equal(dialer.calls.length, 2, "timeout=1 leaves no idle time at all");
    transport.close();
  });
});

Deno.test("a closed transport sends nothing", async () => {
  const dialer = new Dialer();
  const transport = new RelayTransport({ origin: ORIGIN, dial: dialer.dial });
  transport.close();
  const sent = request();
  assert.deepEqual(await transport.send(sent, never(), MAX), {
    ok: false,
    unsent: true,
    detail: "the transport is closed",
  });
  assert.equal(sent.tokens.length, 0, "no token was made");
  assert.equal(dialer.calls.length, 0);
});
