// Whether the relay is still there. The connection is watched for how long a
// read has waited: one that has waited idleMs sends a ping, and if no read has
// returned pongMs later the relay is gone. Time the consumer spends not
// reading is not counted: a busy consumer is no sign of a silent relay.

import type { Duplex } from "../transport/dial.ts";

/** A connection that tells when its reads start and end, and holds the read and write in flight. */
export class WatchedConn implements Duplex {
  /** Reads started so far: one started after a ping means the relay was heard since. */
  reads = 0;
  /** When the read now waiting began; undefined when none is. */
  readingSince: number | undefined;
  /** The read and the write in flight (settled, never rejected): what a close must wait for. */
  reading: Promise<unknown> | undefined;
  writing: Promise<unknown> | undefined;

  constructor(readonly conn: Duplex) {}

  read(buffer: Uint8Array): Promise<number | null> {
    const count = ++this.reads;
    this.readingSince = Date.now();
    const read = this.conn.read(buffer);
    this.reading = read.catch(() => {}).finally(() => {
      if (this.reads === count) this.readingSince = undefined;
    });
    return read;
  }

  write(bytes: Uint8Array): Promise<number> {
    const write = this.conn.write(bytes);
    this.writing = write.catch(() => {});
    return write;
  }

  close(): void {
    try {
      this.conn.close();
    } catch {
      // already closed
    }
  }
}

export interface LivenessHooks {
  /** Send a ping now. */
  ping(): void;
  /** The relay did not answer: end the connection, for `reason`. */
  dead(reason: string): void;
}

/** The check, one timer at a time, rescheduled for when something could next be due; stop() ends it. */
export class Liveness {
  #conn: WatchedConn;
  #idleMs: number;
  #pongMs: number;
  #hooks: LivenessHooks;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #ping: { at: number; reads: number } | undefined;
  #stopped = false;

  constructor(conn: WatchedConn, idleMs: number, pongMs: number, hooks: LivenessHooks) {
    this.#conn = conn;
    this.#idleMs = idleMs;
    this.#pongMs = pongMs;
    this.#hooks = hooks;
    this.#schedule(idleMs);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #schedule(ms: number): void {
    if (!this.#stopped) this.#timer = setTimeout(() => this.#check(), ms);
  }

  #check(): void {
    const now = Date.now();
    const since = this.#conn.readingSince;
    if (since === undefined) {
      this.#ping = undefined;
      return this.#schedule(this.#idleMs);
    }
    if (this.#ping && this.#ping.reads === this.#conn.reads) {
      const waited = now - this.#ping.at;
      if (waited < this.#pongMs) return this.#schedule(this.#pongMs - waited);
      this.stop();
      return this.#hooks.dead(`the relay did not answer a ping within ${this.#pongMs / 1000} s`);
    }
    this.#ping = undefined;
    const quiet = now - since;
    if (quiet < this.#idleMs) return this.#schedule(this.#idleMs - quiet);
    this.#ping = { at: now, reads: this.#conn.reads };
    this.#hooks.ping();
    this.#schedule(this.#pongMs);
  }
}
