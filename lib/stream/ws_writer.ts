// Writes to the relay one frame at a time, never interleaved, each within its
// bound: a write that fails, or has not completed within writeMs (a relay that
// stopped reading), is told to the connection's owner, which ends the
// connection; a write queued after the end is refused with the end's reason.

import { writeAll } from "../transport/bytes.ts";
import type { Duplex } from "../transport/dial.ts";

export interface WriterHooks {
  /** A write failed or stalled, in words; the owner ends the connection (closing it ends the write). */
  failed(reason: string): void;
  /** Why writing is over, once it is; undefined while writes may go on. */
  refusal(): Error | undefined;
}

export class FrameWriter {
  #conn: Duplex;
  #writeMs: number;
  #hooks: WriterHooks;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(conn: Duplex, writeMs: number, hooks: WriterHooks) {
    this.#conn = conn;
    this.#writeMs = writeMs;
    this.#hooks = hooks;
  }

  /** Queues a frame, or what makes it when its turn comes; resolves once it is written. */
  write(frame: Uint8Array | (() => Uint8Array)): Promise<void> {
    const run = this.#queue.then(() => this.#writeNow(frame));
    this.#queue = run.catch(() => {});
    return run;
  }

  async #writeNow(make: Uint8Array | (() => Uint8Array)): Promise<void> {
    const refused = this.#hooks.refusal();
    if (refused) throw refused;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stalled = new Promise<"stalled">((resolve) =>
      timer = setTimeout(() => resolve("stalled"), this.#writeMs)
    );
    const write = writeAll(this.#conn, typeof make === "function" ? make() : make);
    let failure: string | undefined;
    try {
      if (await Promise.race([write, stalled]) === "stalled") {
        failure = `a write to the relay did not complete within ${
          this.#writeMs / 1000
        } s: the relay is not reading`;
      }
    } catch (error) {
      failure = `writing to the relay failed: ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      clearTimeout(timer);
    }
    if (failure) {
      this.#hooks.failed(failure);
      await write.catch(() => {}); // ended by the close that failed() leads to
    }
    const after = this.#hooks.refusal();
    if (after) throw after;
  }
}
