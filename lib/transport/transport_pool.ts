// A few kept connections to the relay, for a caller whose requests may run at
// once (the rpc helper's publish, upload, download and request): each
// request has a connection to itself, the one used last is reused first (so a
// caller that sends one request at a time keeps a single connection), and at
// most `size` are open. A request that finds them all busy waits its turn,
// for as long as its own signal allows.

import type { RelayTransport } from "./kept_connection.ts";

/** Enough for a large upload not to hold up a reply, few enough to stay a good client. */
export const POOL_SIZE = 4;

interface Waiter {
  resolve(transport: RelayTransport): void;
  reject(reason: unknown): void;
}

export class TransportPool {
  #make: () => RelayTransport;
  #size: number;
  #all: RelayTransport[] = [];
  /** Free transports, the one freed last at the end. */
  #idle: RelayTransport[] = [];
  #waiting: Waiter[] = [];
  #closed = false;

  constructor(make: () => RelayTransport, size = POOL_SIZE) {
    this.#make = make;
    this.#size = size;
  }

  /** How many connections the pool's transports have opened. */
  get opened(): number {
    return this.#all.reduce((total, transport) => total + transport.opened, 0);
  }

  /** Opens the first connection ahead of the first request. */
  warm(): void {
    if (this.#all.length === 0 && !this.#closed) this.#idle.push(this.#add());
    this.#idle.at(-1)?.warm();
  }

  /** Runs `work` on a transport of its own; waits for one while all are busy, until `signal` aborts. */
  async use<T>(signal: AbortSignal, work: (transport: RelayTransport) => Promise<T>): Promise<T> {
    const transport = await this.#acquire(signal);
    try {
      return await work(transport);
    } finally {
      this.#release(transport);
    }
  }

  close(): void {
    this.#closed = true;
    for (const transport of this.#all) transport.close();
    for (const waiter of this.#waiting.splice(0)) waiter.reject(new Error("the transport is closed"));
  }

  #add(): RelayTransport {
    const transport = this.#make();
    this.#all.push(transport);
    return transport;
  }

  #acquire(signal: AbortSignal): Promise<RelayTransport> {
    if (this.#closed) return Promise.reject(new Error("the transport is closed"));
    if (signal.aborted) return Promise.reject(signal.reason);
    const idle = this.#idle.pop();
    if (idle) return Promise.resolve(idle);
    if (this.#all.length < this.#size) return Promise.resolve(this.#add());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve: (transport) => {
          signal.removeEventListener("abort", onAbort);
          resolve(transport);
        },
        reject,
      };
      const onAbort = () => {
        this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  #release(transport: RelayTransport): void {
    if (this.#closed) return;
    const next = this.#waiting.shift();
    if (next) next.resolve(transport);
    else this.#idle.push(transport);
  }
}
