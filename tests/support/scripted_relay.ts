// A websocket relay in process whose every connection the test scripts: Deno.serve and
// Deno.upgradeWebSocket on 127.0.0.1, each client message queued for the test to take (`next`), and
// anything at all sent back (`send`): challenges or none, AUTH answers or none, events with bad
// signatures, frames of the wrong length, malformed JSON, NOTICE floods, a close. Upgrades can be
// refused, and each connection can start with a script of its own (`onOpen`).

export interface ScriptedSocket {
  /** 1 for the first connection the relay upgraded, and so on. */
  readonly number: number;
  /** The upgrade request's path and query. */
  readonly target: string;
  /** Every text message the client sent, in order, as sent. */
  readonly received: string[];
  /**
   * The oldest message of `type` (its first element: "REQ", "AUTH", "CLOSE", …; any when absent)
   * not yet taken, parsed; waits for one. Rejects once the socket has closed without one.
   */
  next(type?: string): Promise<unknown[]>;
  /** The messages of `type` received so far, parsed, taken or not. */
  all(type: string): unknown[][];
  /** Sends a frame: an array as JSON, a string as it is (malformed JSON included). */
  send(message: unknown[] | string): void;
  close(code?: number, reason?: string): void;
  readonly open: boolean;
  /** Resolves once the socket has closed, either side: the close code and reason the relay saw. */
  readonly closed: Promise<{ code: number; reason: string }>;
}

export interface ScriptedRelay {
  /** `ws://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Websocket upgrades accepted so far. */
  readonly upgrades: number;
  /** Every upgrade asked for, refused ones included. */
  readonly asked: number;
  readonly sockets: ScriptedSocket[];
  /** The `n`th connection (from 1), once it is open. */
  connection(n: number): Promise<ScriptedSocket>;
  /** Runs on each new connection once it is open (default: nothing; the test scripts it). */
  onOpen: ((socket: ScriptedSocket) => void) | undefined;
  /** While set, upgrades are answered with this HTTP status instead. */
  refuse: number | undefined;
  /** Closes every socket, then the server. */
  close(): Promise<void>;
}

class Socket implements ScriptedSocket {
  readonly received: string[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  #messages: { message: unknown[]; taken: boolean }[] = [];
  #waiters: { type?: string; resolve(message: unknown[]): void; reject(error: Error): void }[] = [];
  #ended = false;

  constructor(readonly number: number, readonly target: string, readonly socket: WebSocket) {
    const closed = Promise.withResolvers<{ code: number; reason: string }>();
    this.closed = closed.promise;
    socket.onmessage = (event) => {
      const text = typeof event.data === "string" ? event.data : "";
      this.received.push(text);
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch {
        return;
      }
      if (!Array.isArray(message)) return;
      const entry = { message, taken: false };
      this.#messages.push(entry);
      const waiter = this.#waiters.find((w) => w.type === undefined || w.type === message[0]);
      if (waiter) {
        entry.taken = true;
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    };
    socket.onerror = () => {};
    socket.onclose = (event) => {
      this.#ended = true;
      for (const waiter of this.#waiters.splice(0)) {
        waiter.reject(new Error(`connection ${number} closed before a ${waiter.type ?? "message"} came`));
      }
      closed.resolve({ code: event.code, reason: event.reason });
    };
  }

  get open(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  next(type?: string): Promise<unknown[]> {
    const entry = this.#messages.find((m) => !m.taken && (type === undefined || m.message[0] === type));
    if (entry) {
      entry.taken = true;
      return Promise.resolve(entry.message);
    }
    if (this.#ended) {
      return Promise.reject(new Error(`connection ${this.number} closed before a ${type ?? "message"} came`));
    }
    return new Promise((resolve, reject) => this.#waiters.push({ type, resolve, reject }));
  }

  all(type: string): unknown[][] {
    return this.#messages.filter((m) => m.message[0] === type).map((m) => m.message);
  }

  send(message: unknown[] | string): void {
    if (!this.open) return;
    this.socket.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  close(code = 1000, reason = ""): void {
    if (this.socket.readyState === WebSocket.OPEN || this.socket.readyState === WebSocket.CONNECTING) {
      this.socket.close(code, reason);
    }
  }
}

/** Starts a scripted relay on 127.0.0.1 (a port the OS picks). Close it with relay.close(). */
export function startScriptedRelay(): ScriptedRelay {
  const sockets: Socket[] = [];
  const waiting: { n: number; resolve(socket: Socket): void }[] = [];
  let upgrades = 0;
  let asked = 0;
  // The server's handler reads the relay's settings, which the test changes at run time.
  const settings: { relay?: ScriptedRelay } = {};
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    asked++;
    const relay = settings.relay!;
    if (relay.refuse !== undefined) return new Response("relay is starting\n", { status: relay.refuse });
    const { socket, response } = Deno.upgradeWebSocket(request);
    const url = new URL(request.url);
    const scripted = new Socket(++upgrades, url.pathname + url.search, socket);
    socket.onopen = () => {
      sockets.push(scripted);
      sockets.sort((a, b) => a.number - b.number);
      relay.onOpen?.(scripted);
      for (const waiter of [...waiting]) {
        const found = sockets.find((s) => s.number === waiter.n);
        if (found) {
          waiting.splice(waiting.indexOf(waiter), 1);
          waiter.resolve(found);
        }
      }
    };
    return response;
  });
  const port = server.addr.port;
  const relay: ScriptedRelay = {
    onOpen: undefined,
    refuse: undefined,
    url: `ws://127.0.0.1:${port}`,
    port,
    get upgrades() {
      return upgrades;
    },
    get asked() {
      return asked;
    },
    sockets,
    connection(n: number): Promise<ScriptedSocket> {
      const found = sockets.find((s) => s.number === n);
      if (found) return Promise.resolve(found);
      return new Promise<ScriptedSocket>((resolve) => waiting.push({ n, resolve }));
    },
    async close(): Promise<void> {
      for (const socket of sockets) socket.close(1001, "relay going away");
      // A client that never answers the close frame: the socket is given up after a moment.
      await Promise.race([
        Promise.all(sockets.map((s) => s.closed)),
        new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 3000);
          Promise.all(sockets.map((s) => s.closed)).then(() => clearTimeout(timer));
        }),
      ]);
      await server.shutdown();
    },
  };
  settings.relay = relay;
  return relay;
}
