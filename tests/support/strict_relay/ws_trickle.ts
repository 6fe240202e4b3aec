// The trickle fault (wsBehaviour "trickle", StrictRelay.trickleWebSockets): the relay sends one frame a
// byte at a time, a byte every TRICKLE_MS, so bytes keep coming and no frame ever ends. On a connection
// already open it begins between two of the relay's frames (FrameBoundaries tracks where they end), and
// from then on nothing else the relay says passes: a pong cannot come inside a frame.

import { writeAll } from "./http1_writer.ts";

export const TRICKLE_MS = 50;

/** A text frame declaring 65535 bytes (`["NOTICE","xxx…`): at a byte every 50 ms, whole after 55 minutes. */
function trickledFrame(): Uint8Array {
  const frame = new Uint8Array(4 + 65535).fill(0x78);
  frame.set([0x81, 126, 0xff, 0xff]);
  frame.set(new TextEncoder().encode('["NOTICE","'), 4);
  return frame;
}

/** Writes the frame to `to` a byte at a time until `signal` aborts or a write fails; never rejects. */
export async function trickle(to: Deno.Conn, signal: AbortSignal): Promise<void> {
  const frame = trickledFrame();
  try {
    for (const byte of frame) {
      if (signal.aborted) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, TRICKLE_MS);
        signal.addEventListener("abort", done, { once: true });
        function done() {
          clearTimeout(timer);
          signal.removeEventListener("abort", done);
          resolve();
        }
      });
      if (signal.aborted) return;
      await writeAll(to, Uint8Array.of(byte));
    }
  } catch {
    // the client went away, or was cut
  }
}

/** Where a server's frames end, in the bytes that pass: so a fault can begin between two of them. */
export class FrameBoundaries {
  /** The header bytes of the frame begun, while its header is not whole. */
  #head: number[] = [];
  /** Its payload bytes still to pass. */
  #left = 0;

  /** Whether the bytes passed so far end with a whole frame. */
  get atBoundary(): boolean {
    return this.#head.length === 0 && this.#left === 0;
  }

  /** Passes the bytes of `chunk`, all of them, or with `stop` up to the first frame's end; how many. */
  take(chunk: Uint8Array, stop: boolean): number {
    let at = 0;
    while (at < chunk.length) {
      if (this.#left > 0) {
        const n = Math.min(this.#left, chunk.length - at);
        at += n;
        this.#left -= n;
      } else {
        this.#head.push(chunk[at++]);
        const length = payloadLength(this.#head);
        if (length !== undefined) [this.#left, this.#head] = [length, []];
      }
      if (stop && this.atBoundary) return at;
    }
    return at;
  }
}

/** The payload length once `head` is a whole header (with its masking key, if any); undefined before. */
function payloadLength(head: number[]): number | undefined {
  if (head.length < 2) return undefined;
  const short = head[1] & 0x7f;
  const extra = short === 126 ? 2 : short === 127 ? 8 : 0;
  const mask = head[1] & 0x80 ? 4 : 0;
  if (head.length < 2 + extra + mask) return undefined;
  let length = extra === 0 ? short : 0;
  for (let i = 0; i < extra; i++) length = length * 256 + head[2 + i];
  return length;
}
