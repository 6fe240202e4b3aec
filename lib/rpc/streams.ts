// The helper's subscriptions by name (rpc-facts.md 3.4, 3.5): each a stream
// of lines on stdout under its name, `connected` once per connection, its
// events, and `error` lines for what its reader should know. A name used
// again replaces its stream; every stream ends with one `error` line saying
// why. When stdout is not read fast enough the stream pauses rather than
// queue without end, and says so; once stdout drains, what was held back is
// fetched again from the relay, so nothing is dropped in silence.

import type { LineWriter } from "../host/stdio.ts";
import type { SignedEvent } from "../key/signer.ts";
import type { RelayStream, StreamSubscription } from "../stream/relay_stream.ts";
import { connectedLine, eventLine, streamErrorLine } from "./lines.ts";

/** Stream lines queued on stdout past this size pause the stream that adds to them. */
export const STDOUT_QUEUE_LIMIT = 8 * 1024 * 1024;
/** A paused stream goes on once stdout's queue is down to this. */
const STDOUT_RESUME_BELOW = STDOUT_QUEUE_LIMIT / 4;

export class HelperStreams {
  #stream: RelayStream;
  #writer: LineWriter;
  #live = new Map<string, StreamSubscription>();

  constructor(stream: RelayStream, writer: LineWriter) {
    this.#stream = stream;
    this.#writer = writer;
  }

  /** Starts the stream `name` (ending one of that name first). */
  subscribe(name: string, filter: unknown): { subscribed: true } {
    this.#end(name, "replaced by a new subscribe of the same name");
    const line = (text: string) => void this.#writer.writeLine(text);
    const subscription: StreamSubscription = this.#stream.subscribe(filter, {
      connected: () => line(connectedLine(name)),
      event: (event: SignedEvent) => {
        // Refused, the subscription pauses (and is sent nothing more) until it is resumed.
        if (this.#writer.pending > STDOUT_QUEUE_LIMIT) {
          void this.#resumeWhenDrained(name, subscription);
          return false;
        }
        line(eventLine(name, event));
        return true;
      },
      trouble: (message) => line(streamErrorLine(name, message)),
    });
    this.#live.set(name, subscription);
    return { subscribed: true };
  }

  /** Ends the stream `name`; whether there was one. */
  unsubscribe(name: string): { stopped: boolean } {
    return { stopped: this.#end(name, "unsubscribed") };
  }

  /** Ends every stream: the helper's input ended. */
  close(): void {
    for (const name of [...this.#live.keys()]) this.#end(name, "the helper's input ended");
  }

  #end(name: string, why: string): boolean {
    const subscription = this.#live.get(name);
    if (!subscription) return false;
    this.#live.delete(name);
    subscription.stop();
    void this.#writer.writeLine(streamErrorLine(name, `subscription ended: ${why}`));
    return true;
  }

  async #resumeWhenDrained(name: string, subscription: StreamSubscription): Promise<void> {
    await this.#writer.drained(STDOUT_RESUME_BELOW);
    if (this.#live.get(name) !== subscription || this.#writer.closed) return;
    const held = subscription.resume();
    void this.#writer.writeLine(streamErrorLine(
      name,
      `stdout was not read fast enough: ${held} event${held === 1 ? " was" : "s were"} held back; ` +
        `subscribing again to fetch them from the relay`,
    ));
  }
}
