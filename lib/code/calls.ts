// A program's relay calls on their way to the bridge: at most maxCalls accepted (the next is refused
// with a message the program sees), at most maxPending in flight, the rest waiting in the order asked.
// When the program ends, calls still waiting are never sent and calls in flight have their signal
// aborted; answers arriving after that are ignored.

import { answerText, type CallRequest, messageOf } from "./bridge.ts";
import type { CallRecord, RelayBridge } from "./program.ts";

/** The guest's side of one call, settled at most once. */
export interface CallSink {
  /** Hands the answer in; returns why it could not be (the program then sees that as the call's error). */
  resolve(answer: string | undefined): string | undefined;
  reject(message: string): void;
}

interface Waiting {
  record: CallRecord;
  args: Record<string, unknown>;
  key?: string;
  sink: CallSink;
}

/** The message a program sees for a call past its limit. */
export function callLimitMessage(maxCalls: number): string {
  return `relay call limit reached: a program may make at most ${maxCalls} relay calls`;
}

export class CallQueue {
  #records: CallRecord[] = [];
  #waiting: Waiting[] = [];
  #inFlight = 0;
  #ended = false;
  #controller = new AbortController();
  /** Calls refused: past the limit, or malformed (counted by the caller through refuse()). */
  refused = 0;
  /** Whether a call was refused for the limit. */
  limitReached = false;

  constructor(
    private readonly bridge: RelayBridge,
    private readonly limits: { maxCalls: number; maxPending: number },
    private readonly pause: () => () => void,
    /** Called after each answer has been handed to the guest. */
    private readonly settled: () => void,
  ) {}

  /** Calls waiting or in flight. */
  get outstanding(): number {
    return this.#waiting.length + this.#inFlight;
  }

  /** Counts a call refused before it reached the queue (a malformed one). */
  refuse(): void {
    this.refused++;
  }

  /** Accepts a call (started after the guest's current turn, in order), or says why not. */
  request(call: CallRequest, sink: CallSink): string | undefined {
    if (this.#ended) return "the program has ended";
    if (this.#records.length >= this.limits.maxCalls) {
      this.refused++;
      this.limitReached = true;
      return callLimitMessage(this.limits.maxCalls);
    }
    const record: CallRecord = { tool: call.tool, state: "queued" };
    this.#records.push(record);
    this.#waiting.push({ record, args: call.args, key: call.key, sink });
    queueMicrotask(() => this.#pump());
    return undefined;
  }

  /** The program has ended: waiting calls are never sent, calls in flight are aborted. */
  end(reason: string): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const { record } of this.#waiting) record.state = "not-sent";
    this.#waiting = [];
    for (const record of this.#records) if (record.state === "sent") record.state = "aborted";
    this.#controller.abort(new Error(reason));
  }

  /** Every accepted call, in order, as it stands. */
  records(): CallRecord[] {
    return this.#records.map((record) => ({ ...record }));
  }

  #pump(): void {
    while (!this.#ended && this.#inFlight < this.limits.maxPending && this.#waiting.length > 0) {
      const call = this.#waiting.shift()!;
      call.record.state = "sent";
      this.#inFlight++;
      let answer: Promise<unknown>;
      try {
        answer = Promise.resolve(
          this.bridge.call(call.record.tool, call.args, {
            signal: this.#controller.signal,
            pause: this.pause,
            ...(call.key === undefined ? {} : { idempotencyKey: call.key }),
          }),
        );
      } catch (error) {
        answer = Promise.reject(error);
      }
      answer.then((value) => this.#settle(call, true, value), (error) => this.#settle(call, false, error));
    }
  }

  #settle({ record, sink }: Waiting, ok: boolean, value: unknown): void {
    if (this.#ended) return;
    this.#inFlight--;
    if (ok) {
      record.state = "ok";
      const text = answerText(record.tool, value);
      // The call was made; when its answer cannot enter the program, the program sees why as its error.
      const refused = text.ok ? sink.resolve(text.value) : text.message;
      if (refused !== undefined) record.error = refused;
      if (!text.ok) sink.reject(text.message);
    } else {
      record.state = "error";
      record.error = messageOf(value);
      sink.reject(record.error);
    }
    this.#pump();
    this.settled();
  }
}
