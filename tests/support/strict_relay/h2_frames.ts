// Following HTTP/2 frames on the TLS gate's decrypted streams (tls_gate.ts): the last stream a client
// opened, whether the server side is between frames, and the GOAWAY frame the gate inserts there.

/** Follows the HTTP/2 frames both ways, to know the last stream and where a frame may be inserted. */
export class H2Watch {
  /** The highest stream id the client opened, and how many it opened. */
  lastStream = 0;
  opened = 0;
  #prefaceLeft = 24;
  #fromClient = new FrameCursor((type, streamId) => {
    if (type === 0x1 && streamId > this.lastStream) {
      this.lastStream = streamId;
      this.opened++;
    }
  });
  #toClient = new FrameCursor(() => {});

  fromClient(chunk: Uint8Array): void {
    const skip = Math.min(this.#prefaceLeft, chunk.length);
    this.#prefaceLeft -= skip;
    this.#fromClient.feed(chunk.subarray(skip));
  }

  toClient(chunk: Uint8Array): void {
    this.#toClient.feed(chunk);
  }

  /** True between two server frames, where a GOAWAY can go. */
  get atBoundary(): boolean {
    return this.#toClient.atBoundary;
  }
}

/** Walks frame headers (9 bytes: 24-bit length, type, flags, 31-bit stream id) across chunks. */
class FrameCursor {
  #head = new Uint8Array(9);
  #headFill = 0;
  #payloadLeft = 0;
  #onFrame: (type: number, streamId: number) => void;

  constructor(onFrame: (type: number, streamId: number) => void) {
    this.#onFrame = onFrame;
  }

  get atBoundary(): boolean {
    return this.#headFill === 0 && this.#payloadLeft === 0;
  }

  feed(chunk: Uint8Array): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.#payloadLeft > 0) {
        const take = Math.min(this.#payloadLeft, chunk.length - at);
        this.#payloadLeft -= take;
        at += take;
        continue;
      }
      const take = Math.min(9 - this.#headFill, chunk.length - at);
      this.#head.set(chunk.subarray(at, at + take), this.#headFill);
      this.#headFill += take;
      at += take;
      if (this.#headFill < 9) return;
      const h = this.#head;
      this.#headFill = 0;
      this.#payloadLeft = (h[0] << 16) | (h[1] << 8) | h[2];
      this.#onFrame(h[3], ((h[5] & 0x7f) << 24) | (h[6] << 16) | (h[7] << 8) | h[8]);
    }
  }
}

export function goaway(lastStream: number): Uint8Array {
  const frame = new Uint8Array(17);
  const view = new DataView(frame.buffer);
  frame.set([0, 0, 8, 0x7, 0]); // length 8, type GOAWAY, no flags; stream 0
  view.setUint32(9, lastStream & 0x7fffffff);
  view.setUint32(13, 0); // NO_ERROR
  return frame;
}
