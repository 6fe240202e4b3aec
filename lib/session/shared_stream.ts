// The mcp session's one websocket client to the relay (stream/relay_stream.ts), shared by the
// listener (--listen, --approvers) and the resource subscriptions: made by whichever needs it
// first, with the module that part already holds (so neither the handshake nor a session that
// never needs it reads the stream's code), and closed once, at the session's end. The stream
// connects only while something is wanted, so sharing it costs nothing while nothing is.

import type { RelayStream } from "../stream/relay_stream.ts";

export class SharedStream {
  #stream: RelayStream | undefined;
  #closed = false;

  /** The session's stream: made by `make` the first time, the same one after. */
  get(make: () => RelayStream): RelayStream {
    if (!this.#stream) {
      this.#stream = make();
      // Asked for once the session ended: it exists only to answer that nothing more will come.
      if (this.#closed) this.#stream.close();
    }
    return this.#stream;
  }

  /** The session ends: the stream closes, whoever made it. */
  close(): void {
    this.#closed = true;
    this.#stream?.close();
  }
}
