// The host's byte streams: readLines (bounded, chunk-agnostic) and LineWriter
// (whole lines, in order). Everything runs on in-memory streams.

import assert from "node:assert/strict";
import { type LineEvent, LineWriter, readLines } from "../../lib/host/stdio.ts";
import { INPUT_LINE_LIMIT_BYTES } from "../support/contract.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const bytes = (text: string) => encoder.encode(text).length;

function streamOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const queue = chunks.map((chunk) => typeof chunk === "string" ? encoder.encode(chunk) : chunk);
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = queue.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(next);
    },
  });
}

/** The bytes of `text` cut into chunks of `size` bytes (cuts may fall inside characters). */
function chunked(text: string, size: number): Uint8Array[] {
  const all = encoder.encode(text);
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < all.length; i += size) chunks.push(all.slice(i, i + size));
  return chunks;
}

async function collect(chunks: (string | Uint8Array)[], limit?: number): Promise<LineEvent[]> {
  const events: LineEvent[] = [];
  for await (const event of readLines(streamOf(chunks), limit)) events.push(event);
  return events;
}

function texts(events: LineEvent[]): string[] {
  return events.map((event) => {
    assert.equal(event.type, "line", JSON.stringify(event));
    return event.type === "line" ? event.text : "";
  });
}

Deno.test("readLines: splitting", async (t) => {
  await t.step("lines split across chunks", async () => {
    const events = await collect(['{"a":', '1}\n{"b"', ":2}\n", '{"c":3}\n']);
    assert.deepEqual(texts(events), ['{"a":1}', '{"b":2}', '{"c":3}']);
  });
  await t.step("several lines in one chunk", async () => {
    assert.deepEqual(texts(await collect(["one\ntwo\nthree\n"])), ["one", "two", "three"]);
  });
  await t.step("the same lines whatever the chunk size, down to one byte", async () => {
    const input = '{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"id":"é😀"}\nlast';
    const want = ['{"jsonrpc":"2.0","id":1,"method":"ping"}', '{"id":"é😀"}', "last"];
    for (let size = 1; size <= 12; size++) {
      assert.deepEqual(texts(await collect(chunked(input, size))), want, `chunk size ${size}`);
    }
  });
  await t.step("CRLF line endings still give one message per line", async () => {
    const events = await collect(['{"a":1}\r\n{"b"', ":2}\r", '\n{"c":3}\r\n']);
    const lines = texts(events);
    assert.equal(lines.length, 3);
    assert.deepEqual(lines.map((text) => JSON.parse(text)), [{ a: 1 }, { b: 2 }, { c: 3 }]);
    assert.deepEqual(lines.map((text) => text.replace(/\r$/, "")), ['{"a":1}', '{"b":2}', '{"c":3}']);
    for (const text of lines) assert.ok(!text.includes("\n"));
  });
  await t.step("a last line without a newline still counts", async () => {
    assert.deepEqual(texts(await collect(["a\nb"])), ["a", "b"]);
    assert.deepEqual(texts(await collect(['{"id":1,', '"method":"ping"}'])), ['{"id":1,"method":"ping"}']);
  });
  await t.step("a final newline adds no extra line; an empty stream gives nothing", async () => {
    assert.deepEqual(texts(await collect(["a\n"])), ["a"]);
    assert.deepEqual(await collect([]), []);
    assert.deepEqual(await collect([new Uint8Array(0), new Uint8Array(0)]), []);
  });
  await t.step("empty lines never merge or drop their neighbours", async () => {
    const lines = texts(await collect(["a\n\n", "\n", "b\n\nc", "\n\n"]));
    assert.deepEqual(lines.filter((text) => text !== ""), ["a", "b", "c"]);
    assert.ok(lines.every((text) => ["a", "b", "c", ""].includes(text)));
  });
});

Deno.test("readLines: multi-byte characters split across chunks", async (t) => {
  for (const char of ["é", "€", "中", "😀", "𝄞"]) {
    await t.step(char, async () => {
      const encoded = encoder.encode(`{"t":"${char}"}\n`);
      const start = encoded.indexOf(encoder.encode(char)[0]);
      const width = bytes(char);
      // Cut inside the character at every possible point.
      for (let cut = 1; cut < width; cut++) {
        const events = await collect([encoded.slice(0, start + cut), encoded.slice(start + cut)]);
        assert.deepEqual(texts(events), [`{"t":"${char}"}`], `cut after ${cut} bytes`);
      }
      // One byte per chunk.
      const singles = [...encoded].map((byte) => Uint8Array.of(byte));
      assert.deepEqual(texts(await collect(singles)), [`{"t":"${char}"}`]);
    });
  }
  await t.step("a long run of emoji at a small chunk size", async () => {
    const text = "😀é中".repeat(200);
    const lines = texts(await collect(chunked(`${text}\n${text}`, 7)));
    assert.deepEqual(lines, [text, text]);
    assert.ok(!lines.join("").includes("\ufffd"));
  });
});

const LIMIT = 1024;

function overlong(events: LineEvent[], index = 0): { bytes: number; id: string | number | null } {
  const event = events[index];
  assert.equal(event?.type, "overlong", JSON.stringify(event));
  if (event.type !== "overlong") throw new Error("unreachable");
  return { bytes: event.bytes, id: event.id };
}

const blob = "x".repeat(5000);
const PING = '{"jsonrpc":"2.0","id":1,"method":"ping"}';

Deno.test("readLines: lines over the limit", async (t) => {
  await t.step("exactly at the limit is a line; one byte more is overlong", async () => {
    const fits = "a".repeat(LIMIT);
    assert.deepEqual(texts(await collect([`${fits}\n`], LIMIT)), [fits]);
    const events = await collect([`${fits}b\n`], LIMIT);
    assert.equal(events.length, 1);
    assert.deepEqual(overlong(events), { bytes: LIMIT + 1, id: null });
  });
  await t.step("id first: one overlong event with the total byte count and the id", async () => {
    const text = `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"blob":"${blob}"}}`;
    const events = await collect([`${text}\n`], LIMIT);
    assert.equal(events.length, 1);
    assert.deepEqual(overlong(events), { bytes: bytes(text), id: 42 });
  });
  await t.step("id last, after a huge params object holding nested ids", async () => {
    const text = `{"jsonrpc":"2.0","method":"tools/call","params":{"id":999,"arguments":{"id":"nested",` +
      `"list":[{"id":5},"id"],"blob":"${blob}"},"meta":"\\"id\\":7"},"id":"req-7"}`;
    const events = await collect([`${text}\n`], LIMIT);
    assert.equal(events.length, 1);
    assert.deepEqual(overlong(events), { bytes: bytes(text), id: "req-7" });
  });
  await t.step("the same when the line arrives in small chunks, the id straddling them", async () => {
    const text = `{"jsonrpc":"2.0","method":"tools/call","params":{"id":999,"blob":"${blob}"},"id":"req-7"}`;
    for (const size of [1, 3, 64, 1000]) {
      const events = await collect(chunked(`${text}\n${PING}\n`, size), LIMIT);
      assert.equal(events.length, 2, `chunk size ${size}`);
      assert.deepEqual(overlong(events), { bytes: bytes(text), id: "req-7" }, `chunk size ${size}`);
      assert.deepEqual(events[1], { type: "line", text: PING });
    }
  });
  await t.step("a string id with escapes is read as JSON", async () => {
    const text = `{"id":"a\\"b\\\\c\\u00e9","method":"x","params":{"blob":"${blob}"}}`;
    assert.deepEqual(overlong(await collect([`${text}\n`], LIMIT)), { bytes: bytes(text), id: 'a"b\\cé' });
  });
  await t.step("numeric ids: 0, negative, fractional, with whitespace around", async () => {
    for (const [raw, id] of [["0", 0], ["-5", -5], ["1.5", 1.5], [" 7 ", 7]] as const) {
      const text = `{ "id" :${raw}, "method":"x","params":{"blob":"${blob}"}}`;
      assert.deepEqual(overlong(await collect([text], LIMIT)), { bytes: bytes(text), id }, raw);
    }
  });
  await t.step("no id, a null id, or an unusable id gives id null", async () => {
    for (
      const head of [
        `{"jsonrpc":"2.0","method":"x"`,
        `{"jsonrpc":"2.0","id":null,"method":"x"`,
        `{"jsonrpc":"2.0","id":true,"method":"x"`,
        `{"jsonrpc":"2.0","id":{"a":1},"method":"x"`,
      ]
    ) {
      const text = `${head},"params":{"blob":"${blob}"}}`;
      assert.deepEqual(overlong(await collect([`${text}\n`], LIMIT)), { bytes: bytes(text), id: null }, head);
    }
  });
  await t.step("an id key nested inside params is never taken", async () => {
    const text = `{"jsonrpc":"2.0","method":"x","params":{"id":123,"inner":{"id":"deep"},"blob":"${blob}"}}`;
    assert.deepEqual(overlong(await collect([`${text}\n`], LIMIT)), { bytes: bytes(text), id: null });
    const inArray = `{"jsonrpc":"2.0","method":"x","params":[{"id":5},"${blob}"]}`;
    assert.deepEqual(overlong(await collect([inArray], LIMIT)), { bytes: bytes(inArray), id: null });
  });
  await t.step("an id key named inside a top-level string is never taken", async () => {
    const text = `{"method":"\\"id\\":5","note":"id","params":{"blob":"${blob}"}}`;
    assert.deepEqual(overlong(await collect([text], LIMIT)), { bytes: bytes(text), id: null });
  });
  await t.step("a line that is not an object is overlong with id null", async () => {
    const text = `[{"id":1},"${blob}"]`;
    assert.deepEqual(overlong(await collect([text], LIMIT)), { bytes: bytes(text), id: null });
    assert.deepEqual(overlong(await collect([blob], LIMIT)), { bytes: blob.length, id: null });
  });
  await t.step("the byte count is UTF-8 bytes, multi-byte characters included", async () => {
    const text = `{"id":3,"params":{"t":"${"😀é".repeat(500)}"}}`;
    assert.deepEqual(overlong(await collect(chunked(`${text}\n`, 5), LIMIT)), { bytes: bytes(text), id: 3 });
  });
  await t.step("the next lines after an overlong one are yielded normally", async () => {
    const big = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"blob":"${blob}"}}`;
    const events = await collect([`${PING}\n${big}\n${PING}\n`, `\n{"id":3}`], LIMIT);
    assert.equal(events.length, 5);
    assert.deepEqual(events[0], { type: "line", text: PING });
    assert.deepEqual(overlong(events, 1), { bytes: bytes(big), id: 2 });
    assert.deepEqual(events[2], { type: "line", text: PING });
    assert.deepEqual(events[3], { type: "line", text: "" });
    assert.deepEqual(events[4], { type: "line", text: '{"id":3}' });
  });
  await t.step("two overlong lines in a row are two events", async () => {
    const a = `{"id":"a","params":"${blob}"}`;
    const b = `{"params":"${blob}","id":"b"}`;
    const events = await collect([`${a}\n${b}\n`], LIMIT);
    assert.equal(events.length, 2);
    assert.deepEqual(overlong(events, 0), { bytes: bytes(a), id: "a" });
    assert.deepEqual(overlong(events, 1), { bytes: bytes(b), id: "b" });
  });
  await t.step("an overlong last line without a newline is still reported", async () => {
    const text = `{"id":9,"params":"${blob}"}`;
    const events = await collect([PING, "\n", text], LIMIT);
    assert.equal(events.length, 2);
    assert.deepEqual(overlong(events, 1), { bytes: bytes(text), id: 9 });
  });
});

/** An in-memory sink; each write waits a little so writes could overlap if not queued. */
function sink(delay: (index: number) => number = () => 0) {
  const chunks: Uint8Array[] = [];
  let active = 0;
  let maxActive = 0;
  const stream = new WritableStream<Uint8Array>({
    async write(chunk) {
      active++;
      maxActive = Math.max(maxActive, active);
      const wait = delay(chunks.length);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      else await Promise.resolve();
      chunks.push(chunk.slice());
      active--;
    },
  });
  return { stream, chunks, maxActive: () => maxActive };
}

Deno.test("LineWriter", async (t) => {
  await t.step("concurrent writes come out as whole lines, in order", async () => {
    const out = sink((index) => index % 3);
    const writer = new LineWriter(out.stream);
    const messages = Array.from({ length: 40 }, (_, i) => ({
      jsonrpc: "2.0",
      id: i,
      result: { text: `${"é😀".repeat(i * 50)}\nembedded newline` },
    }));
    const writes = messages.map((message) => writer.write(message));
    await Promise.all(writes);
    await writer.flush();
    assert.equal(out.chunks.length, messages.length);
    for (const chunk of out.chunks) {
      const text = decoder.decode(chunk);
      assert.ok(text.endsWith("\n"));
      assert.equal(text.indexOf("\n"), text.length - 1, "exactly one newline per line");
    }
    const lines = out.chunks.map((chunk) => JSON.parse(decoder.decode(chunk)));
    assert.deepEqual(lines, messages);
    assert.equal(out.maxActive(), 1, "the stream never sees overlapping writes");
  });
  await t.step("the order is the order of write calls, whoever finishes work first", async () => {
    const out = sink(() => 1);
    const writer = new LineWriter(out.stream);
    const called: number[] = [];
    const tasks = Array.from({ length: 10 }, async (_, i) => {
      await new Promise((resolve) => setTimeout(resolve, (10 - i) * 2));
      called.push(i);
      await writer.write({ id: i });
    });
    await Promise.all(tasks);
    await writer.flush();
    const ids = out.chunks.map((chunk) => JSON.parse(decoder.decode(chunk)).id);
    assert.deepEqual(ids, called);
    assert.deepEqual([...ids].sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
  await t.step("flush resolves once everything written has reached the stream", async () => {
    const out = sink(() => 2);
    const writer = new LineWriter(out.stream);
    for (let i = 0; i < 5; i++) writer.write({ id: i });
    await writer.flush();
    assert.equal(out.chunks.length, 5);
  });
  await t.step("a closed output stops writing quietly and reports once", async () => {
    const errors: unknown[] = [];
    let attempts = 0;
    const stream = new WritableStream<Uint8Array>({
      write() {
        attempts++;
        throw new Error("broken pipe");
      },
    });
    const writer = new LineWriter(stream, (error) => errors.push(error));
    await writer.write({ id: 1 });
    await writer.write({ id: 2 });
    await writer.write({ id: 3 });
    await writer.flush();
    assert.equal(errors.length, 1);
    assert.match((errors[0] as Error).message, /broken pipe/);
    assert.equal(attempts, 1, "no further writes after the output closed");
  });
});

Deno.test("readLines: the default limit is 48 MiB", async () => {
  const MIB = 1024 * 1024;
  const limit = INPUT_LINE_LIMIT_BYTES;
  const filler = new Uint8Array(MIB).fill(0x78); // "x"
  /** A JSON line of exactly `size` bytes with a top-level id, as chunks of at most 1 MiB. */
  function* lineOf(size: number, id: number): Generator<Uint8Array> {
    const head = encoder.encode(`{"id":${id},"p":"`);
    const tail = encoder.encode(`"}\n`);
    yield head;
    let left = size - head.length - (tail.length - 1);
    while (left > 0) {
      const take = Math.min(left, MIB);
      yield filler.subarray(0, take);
      left -= take;
    }
    yield tail;
  }
  const chunks = [...lineOf(limit, 1), ...lineOf(limit + 1, 2), encoder.encode(`${PING}\n`)];
  const events: LineEvent[] = [];
  for await (const event of readLines(streamOf(chunks))) events.push(event);
  assert.equal(events.length, 3);
  assert.equal(events[0].type, "line");
  if (events[0].type === "line") {
    assert.equal(bytes(events[0].text), limit);
    assert.equal(JSON.parse(events[0].text).id, 1);
  }
  assert.deepEqual(events[1], { type: "overlong", bytes: limit + 1, id: 2, rawId: "2" });
  assert.deepEqual(events[2], { type: "line", text: PING });
});

Deno.test("readLines: a source that reuses its buffer does not corrupt held lines", async () => {
  // Each pull overwrites the same buffer, as a reader with a fixed buffer would; with a
  // high-water mark of 0 the source is only pulled once the previous chunk was consumed.
  const input = encoder.encode(`{"a":"${"é".repeat(40)}"}\n{"b":2}\n`);
  const buffer = new Uint8Array(7);
  let offset = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= input.length) return controller.close();
      const take = Math.min(buffer.length, input.length - offset);
      buffer.set(input.subarray(offset, offset + take));
      offset += take;
      controller.enqueue(buffer.subarray(0, take));
    },
  }, { highWaterMark: 0 });
  const events: LineEvent[] = [];
  for await (const event of readLines(stream)) events.push(event);
  assert.deepEqual(texts(events), [`{"a":"${"é".repeat(40)}"}`, '{"b":2}']);
});
