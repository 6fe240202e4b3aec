// Whether the relay is still there. Hearing from it means a whole frame
// arrived, not a byte: a relay that trickles a frame a byte at a time says
// nothing. After idleMs without one a ping is sent, and if none has come
// pongMs later the relay is gone. A message sent in fragments counts from its
// first fragment to its last, and nothing between counts, a pong included (a
// pong can come between fragments, never inside a frame): a message not
// finished idleMs + pongMs after it began is given up as a silence is, so a
// relay that keeps a message open is found as soon as a silent one.
//
// Only time spent waiting on the relay is counted (a read, or a consumer asking
// for a message): a busy consumer is no sign of a silent relay.

import type { Duplex } from "../transport/dial.ts";

/** How long something has waited on the relay: the clock runs while anything waits, and only then. */
export class WaitClock {
  #waiting = 0;
  #since = 0;
  #total = 0;
  #started: (() => void) | undefined;

  /** Something starts waiting on the relay; pair with end(). */
  begin(): void {
    if (this.#waiting++ > 0) return;
    this.#since = Date.now();
    const started = this.#started;
    this.#started = undefined;
    started?.();
  }

  end(): void {
    if (--this.#waiting === 0) this.#total += Date.now() - this.#since;
  }

  get running(): boolean {
    return this.#waiting > 0;
  }

  /** The time waited so far, in ms. */
  now(): number {
    return this.#total + (this.#waiting > 0 ? Date.now() - this.#since : 0);
  }

  /** Calls `wake` once, the next time the clock starts running. */
  whenRunning(wake: () => void): void {
    this.#started = wake;
  }
}

/** A connection that tells when its reads start and end, and holds the read and write in flight. */
export class WatchedConn implements Duplex {
  /** Reads started so far. */
  reads = 0;
  /** When the read now waiting began; undefined when none is. */
  readingSince: number | undefined;
  /** Runs while a read waits (and while the websocket's consumer waits for a message). */
  readonly clock = new WaitClock();
  /** The read and the write in flight (settled, never rejected): what a close must wait for. */
  reading: Promise<unknown> | undefined;
  writing: Promise<unknown> | undefined;

  constructor(readonly conn: Duplex) {}

  read(buffer: Uint8Array): Promise<number | null> {
    const count = ++this.reads;
    this.readingSince = Date.now();
    this.clock.begin();
    const read = this.conn.read(buffer);
    this.reading = read.catch(() => {}).finally(() => {
      this.clock.end();
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

/** What the frame decoder has taken so far (ws_frame.ts's MessageDecoder). */
export interface FrameProgress {
  readonly frames: number;
  readonly messageOpen: boolean;
  readonly midFrame: boolean;
}

export interface LivenessHooks {
  /** Send a ping now. */
  ping(): void;
  /** The relay did not answer: end the connection, for `reason`. */
  dead(reason: string): void;
}

const seconds = (ms: number) => `${ms / 1000} s`;

/** The check, one timer at a time, rescheduled for when something could next be due; stop() ends it. */
export class Liveness {
  #clock: WaitClock;
  #idleMs: number;
  #pongMs: number;
  #hooks: LivenessHooks;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The clock when the relay was last heard: a whole frame, or a message begun or finished. */
  #heard: number;
  /** The clock when the ping now unanswered went. */
  #pinged: number | undefined;
  #seen: FrameProgress = { frames: 0, messageOpen: false, midFrame: false };
  #stopped = false;

  constructor(conn: WatchedConn, idleMs: number, pongMs: number, hooks: LivenessHooks) {
    this.#clock = conn.clock;
    this.#idleMs = idleMs;
    this.#pongMs = pongMs;
    this.#hooks = hooks;
    this.#heard = this.#clock.now();
    this.#schedule(idleMs);
  }

  /** After each step of the decoder: a frame that ends, begins or is outside a message is the relay heard. */
  decoded(progress: FrameProgress): void {
    const before = this.#seen;
    this.#seen = { frames: progress.frames, messageOpen: progress.messageOpen, midFrame: progress.midFrame };
    if (progress.frames === before.frames) return;
    // A message's middle fragments, and control frames between them, do not count: only its end does.
    if (before.messageOpen && progress.messageOpen) return;
    this.#heard = this.#clock.now();
    this.#pinged = undefined;
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    // Waited time passes only while something waits: with nothing waiting, the check waits for that.
    if (this.#clock.running) this.#timer = setTimeout(() => this.#check(), ms);
    else this.#clock.whenRunning(() => this.#schedule(ms));
  }

  #check(): void {
    const now = this.#clock.now();
    if (this.#pinged === undefined) {
      const quiet = now - this.#heard;
      if (quiet < this.#idleMs) return this.#schedule(this.#idleMs - quiet);
      this.#pinged = now;
      this.#hooks.ping();
      return this.#schedule(this.#pongMs);
    }
    const waited = now - this.#pinged;
    if (waited < this.#pongMs) return this.#schedule(this.#pongMs - waited);
    this.stop();
    this.#hooks.dead(this.#reason());
  }

  #reason(): string {
    if (this.#seen.messageOpen) {
      return `the relay did not finish a message within ${
        seconds(this.#idleMs + this.#pongMs)
      } of its first fragment`;
    }
    const unanswered = `the relay did not answer a ping within ${seconds(this.#pongMs)}`;
    return this.#seen.midFrame ? `${unanswered} (a frame it began is still not whole)` : unanswered;
  }
}
