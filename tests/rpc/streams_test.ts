// The helper's subscriptions by name (lib/rpc/streams.ts) over a relay stream the test drives and a
// real line writer whose output the test can hold, like a stdout nobody reads: the three stream
// lines, a name used again, unsubscribe, the end of input, and the pause when too much is queued,
// resumed once stdout drains, never for a stream that ended meanwhile.

import assert from "node:assert/strict";
import { LineWriter } from "../../lib/host/stdio.ts";
import type { SignedEvent } from "../../lib/key/signer.ts";
import { HelperStreams, STDOUT_QUEUE_LIMIT } from "../../lib/rpc/streams.ts";
import type { RelayStream, StreamSubscription } from "../../lib/stream/relay_stream.ts";
import type { SubscriptionSink } from "../../lib/stream/stream_subscription.ts";
import { within } from "../support/waits.ts";

/** One subscribe the fake stream was asked for: its sink, and what was done to it. */
interface Asked {
  filter: unknown;
  sink: SubscriptionSink;
  resumes: number;
  stops: number;
  /** What resume() returns. */
  held: number;
}

/** A relay stream of which only subscribe is used; `log` is shared with the output, to see the order. */
class FakeStream {
  asked: Asked[] = [];
  constructor(readonly log: string[]) {}
  subscribe(filter: unknown, sink: SubscriptionSink): StreamSubscription {
    const asked: Asked = { filter, sink, resumes: 0, stops: 0, held: 0 };
    this.asked.push(asked);
    this.log.push(`subscribe ${this.asked.length}`);
    return {
      resume: () => {
        asked.resumes++;
        this.log.push(`resume ${this.asked.indexOf(asked) + 1}`);
        return asked.held;
      },
      stop: () => {
        asked.stops++;
        this.log.push(`stop ${this.asked.indexOf(asked) + 1}`);
      },
    };
  }
}

/** stdout: every line written, parsed; with `hold()`, writes wait until `release()`. */
class Stdout {
  lines: string[] = [];
  #held: (() => void)[] = [];
  #holding = false;
  constructor(readonly log: string[]) {}
  write = (bytes: Uint8Array): Promise<void> => {
    const done = () => {
      for (const line of new TextDecoder().decode(bytes).split("\n").filter(Boolean)) {
        this.lines.push(line);
        this.log.push(line.length > 200 ? `${line.slice(0, 60)}…` : line);
      }
    };
    if (!this.#holding) {
      done();
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#held.push(() => (done(), resolve())));
  };
  hold(): void {
    this.#holding = true;
  }
  release(): void {
    this.#holding = false;
    for (const next of this.#held.splice(0)) next();
  }
  parsed(): unknown[] {
    return this.lines.map((line) => JSON.parse(line));
  }
}

function setup() {
  const log: string[] = [];
  const stream = new FakeStream(log);
  const stdout = new Stdout(log);
  const writer = new LineWriter({ write: stdout.write });
  const streams = new HelperStreams(stream as unknown as RelayStream, writer);
  return { log, stream, stdout, writer, streams };
}

function event(n: number, content = `hello ${n}`): SignedEvent {
  return {
    id: n.toString(16).padStart(64, "0"),
    pubkey: "a".repeat(64),
    created_at: 1_700_000_000,
    kind: 9,
    tags: [["h", "general"]],
    content,
    sig: "b".repeat(128),
  };
}

Deno.test("connected, event and error lines, each under its name, the event's seven members in order", async () => {
  const { stream, stdout, writer, streams } = setup();
  assert.deepEqual(streams.subscribe("tinyagent", { kinds: [9] }), { subscribed: true });
  assert.deepEqual(stream.asked[0].filter, { kinds: [9] });
  const { sink } = stream.asked[0];
  sink.connected();
  // Members in another order and one the relay added: the line has the seven, in NIP-01 order.
  const { id, pubkey, created_at, kind, tags, content, sig } = event(1, "a <b> & c\u2028");
  const scrambled = { sig, extra: "relay's own", content, tags, kind, created_at, pubkey, id };
  assert.equal(sink.event(scrambled as unknown as SignedEvent), true);
  sink.trouble("the relay closed the subscription: error: x; subscribing again in 1 s");
  await writer.flush();
  assert.deepEqual(stdout.lines, [
    '{"event":"connected","subscription":"tinyagent"}',
    `{"event":"event","subscription":"tinyagent","data":{"id":"${id}","pubkey":"${pubkey}",` +
    `"created_at":1700000000,"kind":9,"tags":[["h","general"]],"content":"a \\u003cb\\u003e \\u0026 c\\u2028",` +
    `"sig":"${sig}"}}`,
    '{"event":"error","subscription":"tinyagent","data":{"message":"the relay closed the subscription: ' +
    'error: x; subscribing again in 1 s"}}',
  ]);
});

Deno.test("a name used again ends the old stream, said under that name, before the new one starts", async () => {
  const { log, stream, stdout, writer, streams } = setup();
  streams.subscribe("n", { kinds: [1] });
  stream.asked[0].sink.connected();
  streams.subscribe("n", { kinds: [2] });
  stream.asked[1].sink.connected();
  await writer.flush();
  assert.deepEqual(log.filter((entry) => !entry.startsWith("{")), ["subscribe 1", "stop 1", "subscribe 2"]);
  assert.deepEqual(stdout.lines, [
    '{"event":"connected","subscription":"n"}',
    '{"event":"error","subscription":"n","data":{"message":"subscription ended: replaced by a new subscribe of the same name"}}',
    '{"event":"connected","subscription":"n"}',
  ]);
  assert.deepEqual(stream.asked[1].filter, { kinds: [2] });
  assert.equal(stream.asked[0].stops, 1);
  assert.equal(stream.asked[1].stops, 0);
  // The live one is the new one: unsubscribe stops it, and only it.
  assert.deepEqual(streams.unsubscribe("n"), { stopped: true });
  assert.equal(stream.asked[1].stops, 1);
  assert.equal(stream.asked[0].stops, 1);
  await writer.flush();
  assert.equal(stdout.lines.length, 4);
});

Deno.test("unsubscribe: true with one line for a live name; false, and nothing written, otherwise", async () => {
  const { stream, stdout, writer, streams } = setup();
  streams.subscribe("a", {});
  streams.subscribe("b", {});
  assert.deepEqual(streams.unsubscribe("a"), { stopped: true });
  assert.deepEqual(streams.unsubscribe("a"), { stopped: false });
  assert.deepEqual(streams.unsubscribe("nobody"), { stopped: false });
  assert.deepEqual(streams.unsubscribe(""), { stopped: false });
  await writer.flush();
  assert.deepEqual(stdout.parsed(), [
    { event: "error", subscription: "a", data: { message: "subscription ended: unsubscribed" } },
  ]);
  assert.deepEqual(stream.asked.map((asked) => asked.stops), [1, 0]);
});

Deno.test("close() ends every stream with one line each; nothing is live after", async () => {
  const { stream, stdout, writer, streams } = setup();
  for (const name of ["one", "two", "three"]) streams.subscribe(name, {});
  streams.unsubscribe("two");
  streams.close();
  streams.close();
  await writer.flush();
  assert.deepEqual(stdout.parsed(), [
    { event: "error", subscription: "two", data: { message: "subscription ended: unsubscribed" } },
    {
      event: "error",
      subscription: "one",
      data: { message: "subscription ended: the helper's input ended" },
    },
    {
      event: "error",
      subscription: "three",
      data: { message: "subscription ended: the helper's input ended" },
    },
  ]);
  assert.deepEqual(stream.asked.map((asked) => asked.stops), [1, 1, 1]);
  assert.deepEqual(streams.unsubscribe("one"), { stopped: false });
});

/** Fills stdout's queue past the limit with events of `name`'s sink, stdout held; how many were taken. */
function overfill(stdout: Stdout, writer: LineWriter, sink: SubscriptionSink): number {
  stdout.hold();
  const big = "x".repeat(1024 * 1024);
  let taken = 0;
  while (writer.pending <= STDOUT_QUEUE_LIMIT) {
    assert.equal(sink.event(event(taken + 1, big)), true, "taken while under the limit");
    taken++;
  }
  return taken;
}

Deno.test("past the queue limit an event is refused; once stdout drains, resumed once and said with the count", async () => {
  const { stream, stdout, writer, streams } = setup();
  streams.subscribe("s", {});
  const asked = stream.asked[0];
  asked.held = 7;
  const taken = overfill(stdout, writer, asked.sink);
  assert.equal(asked.sink.event(event(100)), false, "refused: too much is queued");
  // Nobody reads: no resume.
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(asked.resumes, 0);
  stdout.release();
  await within(
    5000,
    "the resume line",
    (async () => {
      while (!stdout.lines.some((line) => line.includes("not read fast enough"))) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })(),
  );
  await writer.flush();
  assert.equal(asked.resumes, 1);
  assert.equal(
    stdout.lines.length,
    taken + 1,
    "the events taken, then the line; the refused one not written",
  );
  assert.deepEqual(JSON.parse(stdout.lines.at(-1)!), {
    event: "error",
    subscription: "s",
    data: {
      message: "stdout was not read fast enough: 7 events were held back; subscribing again to fetch " +
        "them from the relay",
    },
  });
  // Under the limit again: events are taken.
  assert.equal(asked.sink.event(event(101)), true);
});

Deno.test("one event held back is said in the singular", async () => {
  const { stream, stdout, writer, streams } = setup();
  streams.subscribe("s", {});
  const asked = stream.asked[0];
  asked.held = 1;
  overfill(stdout, writer, asked.sink);
  assert.equal(asked.sink.event(event(100)), false);
  stdout.release();
  await within(
    5000,
    "the resume",
    (async () => {
      while (asked.resumes === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    })(),
  );
  await writer.flush();
  assert.equal(
    JSON.parse(stdout.lines.at(-1)!).data.message,
    "stdout was not read fast enough: 1 event was held back; subscribing again to fetch them from the relay",
  );
});

Deno.test("resumed only once the queue is down to a quarter of the limit", async () => {
  const { stream, stdout, writer, streams } = setup();
  streams.subscribe("s", {});
  const asked = stream.asked[0];
  overfill(stdout, writer, asked.sink);
  assert.equal(asked.sink.event(event(100)), false);
  await new Promise((resolve) => setTimeout(resolve, 0)); // the first line is at stdout, held
  // Let lines out one at a time: no resume while more than 2 MiB are still queued.
  const quarter = STDOUT_QUEUE_LIMIT / 4;
  for (;;) {
    const before = writer.pending;
    if (before <= quarter) break;
    assert.equal(asked.resumes, 0, `${before} bytes still queued`);
    stdout.release();
    stdout.hold();
    await within(
      2000,
      "one line out",
      (async () => {
        while (writer.pending === before) await new Promise((resolve) => setTimeout(resolve, 1));
      })(),
    );
  }
  stdout.release();
  await within(
    5000,
    "the resume",
    (async () => {
      while (asked.resumes === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    })(),
  );
  await writer.flush();
  assert.equal(asked.resumes, 1);
});

Deno.test("a stream ended while paused is not resumed, and says nothing more", async (t) => {
  for (
    const [how, end] of [
      ["unsubscribed", (streams: HelperStreams) => streams.unsubscribe("s")],
      ["replaced", (streams: HelperStreams) => streams.subscribe("s", {})],
      ["ended with the input", (streams: HelperStreams) => streams.close()],
    ] as const
  ) {
    await t.step(how, async () => {
      const { stream, stdout, writer, streams } = setup();
      streams.subscribe("s", {});
      const asked = stream.asked[0];
      overfill(stdout, writer, asked.sink);
      assert.equal(asked.sink.event(event(100)), false);
      end(streams);
      stdout.release();
      await writer.flush();
      await within(2000, "drained", writer.drained(0));
      await new Promise((resolve) => setTimeout(resolve, 20));
      await writer.flush();
      assert.equal(asked.resumes, 0);
      assert.equal(stdout.lines.filter((line) => line.includes("not read fast enough")).length, 0);
      assert.equal(asked.stops, 1);
    });
  }
});

Deno.test("a stdout that closed while paused: not resumed", async () => {
  const log: string[] = [];
  const stream = new FakeStream(log);
  let fail = false;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => release = resolve);
  const writer = new LineWriter({
    write: async () => {
      await gate;
      if (fail) throw new Error("broken pipe");
    },
  });
  const streams = new HelperStreams(stream as unknown as RelayStream, writer);
  streams.subscribe("s", {});
  const asked = stream.asked[0];
  const big = "x".repeat(1024 * 1024);
  for (let n = 1; writer.pending <= STDOUT_QUEUE_LIMIT; n++) asked.sink.event(event(n, big));
  assert.equal(asked.sink.event(event(100)), false);
  fail = true;
  release();
  await within(2000, "the writer closes", writer.flush());
  assert.equal(writer.closed, true);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(asked.resumes, 0);
  streams.close();
});
