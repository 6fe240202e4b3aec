// The HTTP/2 front end: Deno.serve (hyper) on a loopback port, speaking h2 with prior knowledge to the
// TLS gate (tls_gate.ts), which terminated TLS for a client that picked `h2` by ALPN and owns its
// socket. Requests are numbered, cut and idled through the gate.
//
// Why Deno.serve and not node:http2 (both tried on Deno 2.9.6): node:http2.createSecureServer took
// 11 s for a 10 MiB POST body and 23 s for 40 MiB, and aborted the whole process (an nghttp2
// assertion in find_stream_on_goaway_func; "free(): invalid pointer" in another run) when a client
// went away after a 64 MiB answer. Deno.serve reads 40 MiB in ~0.4 s and streams 64 MiB answers.
// What it cannot do is drop a connection or send GOAWAY itself: the gate does both.
//
// Faults on HTTP/2: drop closes the connection (close_notify and FIN, no GOAWAY), cutAfterRun kills it
// as asked (types.ts CutHow); resetMidBody sends HEADERS announcing a length and part of the body, then resets the
// stream (RST_STREAM INTERNAL_ERROR; the connection stays); hang never answers until the client
// cancels or the relay closes; status answers, jsonrpcError and huge bodies are ordinary answers.

import type { Answer, RequestHandler } from "./exchange.ts";
import type { TlsGate } from "./tls_gate.ts";

const RESET_AFTER_MS = 20;

/** Raised into a body stream to reset it; the server's onError knows it and stays quiet. */
class StreamReset extends Error {}

export interface Http2Options {
  maxBody: number;
}

async function readBody(
  req: Request,
  maxBody: number,
): Promise<{ body: Uint8Array; bodySize: number; tooLarge: boolean }> {
  const parts: Uint8Array[] = [];
  let bodySize = 0;
  if (req.body) {
    for await (const chunk of req.body) {
      bodySize += chunk.length;
      if (bodySize <= maxBody) parts.push(chunk);
    }
  }
  const tooLarge = bodySize > maxBody;
  const body = new Uint8Array(tooLarge ? 0 : bodySize);
  let at = 0;
  if (!tooLarge) {
    for (const part of parts) {
      body.set(part, at);
      at += part.length;
    }
  }
  return { body, bodySize, tooLarge };
}

/** A JSON string of exactly `total` bytes, in 64 KiB pieces. */
function hugeBody(total: number): ReadableStream<Uint8Array> {
  const block = new Uint8Array(64 * 1024).fill(0x61); // 'a'
  let left = total;
  return new ReadableStream({
    pull(controller) {
      if (left <= 0) {
        controller.close();
        return;
      }
      const n = Math.min(left, block.length);
      const chunk = block.slice(0, n);
      if (left === total) chunk[0] = 0x22; // opening quote
      if (n === left) chunk[n - 1] = 0x22; // closing quote
      left -= n;
      controller.enqueue(chunk);
    },
  });
}

function until(signal: AbortSignal, closed: Promise<void>): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return Promise.race([new Promise<void>((r) => signal.addEventListener("abort", () => r())), closed]);
}

export class Http2FrontEnd {
  readonly port: number;
  #server: Deno.HttpServer<Deno.NetAddr>;
  #maxBody: number;
  #closed = false;
  #closedPromise: Promise<void>;
  #signalClosed!: () => void;

  constructor(handle: RequestHandler, gate: () => TlsGate, options: Http2Options) {
    this.#maxBody = options.maxBody;
    this.#closedPromise = new Promise((r) => (this.#signalClosed = r));
    this.#server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen: () => {},
      // A reset stream (StreamReset) and a write to a cut connection are the relay's own doing.
      onError: (error) => {
        if (!(error instanceof StreamReset) && !this.#closed) console.error("strict relay (h2):", error);
        return new Response(null, { status: 500 });
      },
    }, (req, info) => this.#serve(req, info, handle, gate()));
    this.port = this.#server.addr.port;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#signalClosed();
    await this.#server.shutdown();
  }

  async #serve(
    req: Request,
    info: Deno.ServeHandlerInfo<Deno.NetAddr>,
    handle: RequestHandler,
    gate: TlsGate,
  ): Promise<Response> {
    const innerPort = info.remoteAddr.port;
    gate.streamBegan(innerPort);
    info.completed.catch(() => {}).finally(() => gate.streamEnded(innerPort));
    const url = new URL(req.url);
    const headers = new Headers(req.headers);
    headers.set("host", url.host); // HTTP/2 carries it as :authority
    let read;
    try {
      read = await readBody(req, this.#maxBody);
    } catch {
      return new Response(null, { status: 400 }); // the client reset the stream mid-body
    }
    const { answer, release, record } = await handle({
      method: req.method,
      target: url.pathname + url.search,
      headers,
      ...read,
      connection: gate.idOf(innerPort),
      httpVersion: "2",
    });
    try {
      if (this.#closed) {
        gate.cut(innerPort, "fin");
        return new Response(null, { status: 503 });
      }
      if (answer.kind === "drop" || answer.kind === "cut") {
        record.cut = gate.cut(innerPort, answer.kind === "cut" ? answer.how : "close");
        return new Response(null, { status: 500 }); // written nowhere: the connection is gone
      }
      if (answer.kind === "websocket") {
        answer.splice.ended(); // not reached: the core splices HTTP/1.1 upgrades only
        return new Response(null, { status: 500 });
      }
      if (answer.kind === "hang") {
        await until(req.signal, this.#closedPromise);
        return new Response(null, { status: 504 });
      }
      return this.#response(req, answer);
    } finally {
      release();
    }
  }

  #response(
    req: Request,
    answer: Exclude<Answer, { kind: "drop" | "cut" | "hang" | "websocket" }>,
  ): Response {
    switch (answer.kind) {
      case "reply": {
        const empty = req.method === "HEAD" || answer.body.length === 0;
        const body = answer.body as Uint8Array<ArrayBuffer>;
        return new Response(empty ? null : body, { status: answer.status, headers: answer.headers });
      }
      case "reset": {
        const partial = answer.partial;
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(partial);
          },
          // A moment first, so the client has the head before the reset (else fetch sees only the reset).
          async pull(controller) {
            await new Promise((r) => setTimeout(r, RESET_AFTER_MS));
            controller.error(new StreamReset("resetMidBody"));
          },
        });
        const headers = [...answer.headers, ["content-length", String(answer.announced)]];
        return new Response(body, { status: answer.status, headers });
      }
      case "huge": {
        const headers: [string, string][] = [["content-type", "application/json"]];
        if (!answer.chunked) headers.push(["content-length", String(answer.bytes)]);
        return new Response(hugeBody(answer.bytes), { status: 200, headers });
      }
    }
  }
}
