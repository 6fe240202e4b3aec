// The internal websocket server: Deno.serve on a loopback port whose only job is Deno.upgradeWebSocket.
// Front ends splice accepted upgrades to it (ws_splice.ts); each hop is known by its local port,
// bound to the client connection it carries before any byte is written on it.

import type { WsSplice } from "./exchange.ts";
import type { WsMode } from "./types.ts";

/** Deno pings an idle client this often (seconds), and closes it if no pong comes: the real relay's 30 s. */
const PING_S = 30;

/** An upgrade the core accepted, waiting for its hop. */
export interface WsBinding {
  connection: number;
  /** The connection's own URL, for AUTH's relay tag. */
  relayUrl: string;
  mode: WsMode;
}

interface Hop extends WsBinding {
  upgraded: boolean;
  ended: boolean;
  /** From the next frame boundary on, the relay trickles a frame (ws_trickle.ts). */
  trickle(): void;
}

export class WsServer {
  readonly port: number;
  #server: Deno.HttpServer<Deno.NetAddr>;
  #hops = new Map<number, Hop>();
  #start: (socket: WebSocket, binding: WsBinding) => void;
  #accepted = 0;
  #open = 0;

  /** `start` takes each upgraded socket over (it is not open yet). */
  constructor(start: (socket: WebSocket, binding: WsBinding) => void) {
    this.#start = start;
    this.#server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen: () => {},
      onError: () => new Response("internal error", { status: 500 }),
    }, (req, info) => this.#upgrade(req, info));
    this.port = this.#server.addr.port;
  }

  /** Upgrades accepted so far. */
  get accepted(): number {
    return this.#accepted;
  }

  /** Accepted upgrades whose client connection is still open. */
  get open(): number {
    return this.#open;
  }

  /** The splice for an upgrade the core accepted. */
  splice(binding: WsBinding): WsSplice {
    const asked = Promise.withResolvers<void>();
    const hop: Hop = { ...binding, upgraded: false, ended: false, trickle: asked.resolve };
    let localPort: number | undefined;
    return {
      port: this.port,
      stall: binding.mode === "stall",
      trickle: binding.mode === "trickle",
      trickleAsked: asked.promise,
      opened: (port) => {
        localPort = port;
        this.#hops.set(port, hop);
      },
      ended: () => {
        if (hop.ended) return;
        hop.ended = true;
        if (localPort !== undefined) this.#hops.delete(localPort);
        if (hop.upgraded) this.#open--;
      },
    };
  }

  /** Every open connection that passes the relay's frames trickles a frame from now on; how many. */
  trickleOpen(): number {
    const open = [...this.#hops.values()].filter((hop) =>
      hop.upgraded && !hop.ended && hop.mode !== "stall" && hop.mode !== "trickle"
    );
    for (const hop of open) hop.trickle();
    return open.length;
  }

  async close(): Promise<void> {
    await this.#server.shutdown();
  }

  #upgrade(req: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>): Response {
    const hop = this.#hops.get(info.remoteAddr.port);
    if (!hop || hop.ended) return new Response("no such connection\n", { status: 400 });
    let upgrade: Deno.WebSocketUpgrade;
    try {
      upgrade = Deno.upgradeWebSocket(req, { idleTimeout: PING_S });
    } catch (err) {
      // Not a well-formed websocket handshake (no key, a wrong version): the relay says why.
      const body = `bad websocket handshake: ${err instanceof Error ? err.message : err}\n`;
      return new Response(body, { status: 400, headers: { "content-type": "text/plain; charset=utf-8" } });
    }
    hop.upgraded = true;
    this.#accepted++;
    this.#open++;
    this.#start(upgrade.socket, hop);
    return upgrade.response;
  }
}
