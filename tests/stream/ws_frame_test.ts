// Websocket framing (lib/stream/ws_frame.ts): the client's frames byte by byte at every length
// boundary, and the strict decoder fed every rule a server frame can break (each with the close
// code the client answers with), in any chunking, with messages bounded across fragments.

import assert from "node:assert/strict";
import {
  encodeFrame,
  MessageDecoder,
  Opcode,
  parseHeader,
  type Received,
  sizeWords,
  WsProtocolError,
} from "../../lib/stream/ws_frame.ts";
import { clientFrames, closeBody, serverFrame } from "./ws_peers.ts";

const encoder = new TextEncoder();
const KEY = Uint8Array.of(0x37, 0xfa, 0x21, 0x3d);

/** Every event from `bytes` fed in the given pieces; the error, if decoding failed. */
function decode(pieces: Uint8Array[], max?: number): { events: Received[]; error?: WsProtocolError } {
  const decoder = new MessageDecoder(max);
  const events: Received[] = [];
  try {
    for (const piece of pieces) {
      decoder.push(piece);
      for (let event = decoder.next(); event; event = decoder.next()) events.push(event);
    }
  } catch (error) {
    if (!(error instanceof WsProtocolError)) throw error;
    return { events, error };
  }
  return { events };
}

function joined(...frames: Uint8Array[]): Uint8Array {
  const all = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
  let at = 0;
  for (const frame of frames) [all.set(frame, at), at += frame.length];
  return all;
}

/** The code and message `bytes` fail with, fed whole. */
function refusal(bytes: Uint8Array, max?: number): { code: number; message: string } {
  const { error } = decode([bytes], max);
  assert.ok(error, "the decoder refused the frames");
  return { code: error.code, message: error.message };
}

/** A deterministic PRNG (mulberry32), so a failing split can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

Deno.test("encodeFrame: FIN, the opcode, the mask bit and the shortest length, at each boundary", () => {
  const cases: [number, number[]][] = [
    [0, [0x81, 0x80]],
    [125, [0x81, 0x80 | 125]],
    [126, [0x81, 0x80 | 126, 0x00, 126]],
    [65535, [0x81, 0x80 | 126, 0xff, 0xff]],
    [65536, [0x81, 0x80 | 127, 0, 0, 0, 0, 0, 0x01, 0x00, 0x00]],
  ];
  for (const [length, head] of cases) {
    const payload = Uint8Array.from({ length }, (_, i) => (i * 7) & 0xff);
    const frame = encodeFrame(Opcode.text, payload, KEY);
    assert.deepEqual([...frame.subarray(0, head.length)], head, `header for ${length}`);
    assert.deepEqual(frame.subarray(head.length, head.length + 4), KEY, `key after the header for ${length}`);
    assert.equal(frame.length, head.length + 4 + length);
    for (let i = 0; i < length; i++) {
      if (frame[head.length + 4 + i] !== (payload[i] ^ KEY[i % 4])) {
        assert.fail(`byte ${i} of ${length} unmasked`);
      }
    }
    const [read] = clientFrames(frame);
    assert.deepEqual(read, { fin: true, opcode: Opcode.text, masked: true, payload });
  }
});

Deno.test("encodeFrame: a fresh random key per frame, opcodes as given, control payloads at most 125", () => {
  const payload = new Uint8Array(64);
  const keys = new Set(
    Array.from({ length: 8 }, () => encodeFrame(Opcode.binary, payload).subarray(2, 6).join(",")),
  );
  assert.ok(keys.size > 1, "the masking key changes from frame to frame");
  for (const opcode of [Opcode.binary, Opcode.close, Opcode.ping, Opcode.pong]) {
    assert.equal(encodeFrame(opcode, new Uint8Array(3), KEY)[0], 0x80 | opcode);
  }
  assert.equal(encodeFrame(Opcode.ping, new Uint8Array(125), KEY).length, 2 + 4 + 125);
  assert.throws(() => encodeFrame(Opcode.ping, new Uint8Array(126), KEY), RangeError);
  assert.throws(() => encodeFrame(Opcode.text, payload, new Uint8Array(3)), RangeError);
});

Deno.test("round trips at 0, 125, 126, 65535, 65536 bytes: what a server sends is what is read", () => {
  for (const length of [0, 125, 126, 65535, 65536]) {
    const bytes = Uint8Array.from({ length }, (_, i) => (i * 31) & 0xff);
    const { events, error } = decode([serverFrame({ opcode: Opcode.binary, payload: bytes })]);
    assert.equal(error, undefined);
    assert.deepEqual(events, [{ type: "binary", bytes }]);
    const [frame] = clientFrames(encodeFrame(Opcode.binary, bytes, KEY));
    assert.deepEqual(frame.payload, bytes);
  }
  const text = "snow ☃ and 𝄞";
  assert.deepEqual(decode([serverFrame({ opcode: Opcode.text, payload: text })]).events, [{
    type: "text",
    text,
  }]);
});

Deno.test("parseHeader: undefined until the header is whole, then its fields", () => {
  const frame = serverFrame({ opcode: Opcode.text, payload: new Uint8Array(70000) });
  for (let n = 0; n < 10; n++) assert.equal(parseHeader(frame.subarray(0, n)), undefined, `${n} bytes`);
  assert.deepEqual(parseHeader(frame.subarray(0, 10)), { fin: true, opcode: 1, length: 70000, size: 10 });
  assert.deepEqual(parseHeader(Uint8Array.of(0x02, 0x7e, 0x01, 0x00)), {
    fin: false,
    opcode: 2,
    length: 256,
    size: 4,
  });
});

Deno.test("each rule a server frame breaks fails, with its close code", () => {
  const text = (spec: Partial<Parameters<typeof serverFrame>[0]>) =>
    serverFrame({ opcode: Opcode.text, payload: "hi", ...spec });
  const cases: [string, Uint8Array, number, RegExp][] = [
    ["RSV1", text({ rsv: 0b100 }), 1002, /reserved bit/],
    ["RSV2", text({ rsv: 0b010 }), 1002, /reserved bit/],
    ["RSV3", text({ rsv: 0b001 }), 1002, /reserved bit/],
    ["masked", text({ mask: KEY }), 1002, /masked frame/],
    ["fragmented ping", serverFrame({ opcode: Opcode.ping, fin: false }), 1002, /fragmented ping/],
    ["fragmented close", serverFrame({ opcode: Opcode.close, fin: false }), 1002, /fragmented close/],
    [
      "ping of 126",
      serverFrame({ opcode: Opcode.ping, payload: new Uint8Array(126) }),
      1002,
      /more than 125/,
    ],
    ["pong of 126", serverFrame({ opcode: Opcode.pong, payload: new Uint8Array(126) }), 1002, /pong frame/],
    ["top bit", text({ length: 1n << 63n }), 1002, /top bit set/],
    [
      "lone continuation",
      serverFrame({ opcode: 0, payload: "x" }),
      1002,
      /continuation frame with no message/,
    ],
    [
      "data while a message is open",
      joined(text({ fin: false }), text({})),
      1002,
      /new message before finishing/,
    ],
    ["close of 1 byte", serverFrame({ opcode: Opcode.close, payload: Uint8Array.of(3) }), 1002, /1 byte/],
    [
      "close reason not UTF-8",
      serverFrame({ opcode: 8, payload: closeBody(1000, Uint8Array.of(0xc3)) }),
      1007,
      /UTF-8/,
    ],
    [
      "text not UTF-8",
      serverFrame({ opcode: 1, payload: Uint8Array.of(0x61, 0xff) }),
      1007,
      /not valid UTF-8/,
    ],
    [
      "text of a lone surrogate",
      serverFrame({ opcode: 1, payload: Uint8Array.of(0xed, 0xa0, 0x80) }),
      1007,
      /UTF-8/,
    ],
    ["overlong UTF-8", serverFrame({ opcode: 1, payload: Uint8Array.of(0xc0, 0xaf) }), 1007, /UTF-8/],
  ];
  for (const opcode of [3, 4, 5, 6, 7, 11, 12, 13, 14, 15]) {
    cases.push([
      `opcode ${opcode}`,
      serverFrame({ opcode }),
      1002,
      new RegExp(`unknown opcode ${opcode}\\b`),
    ]);
  }
  for (const [name, bytes, code, pattern] of cases) {
    const failed = refusal(bytes);
    assert.equal(failed.code, code, name);
    assert.match(failed.message, pattern, name);
  }
});

Deno.test("close codes: 1000-1003, 1007-1014 and 3000-4999 are read; the rest fail with 1002", () => {
  for (const code of [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 4999]) {
    const { events, error } = decode([
      serverFrame({ opcode: Opcode.close, payload: closeBody(code, "ok ☃") }),
    ]);
    assert.equal(error, undefined, `${code}`);
    assert.deepEqual(events, [{ type: "close", code, reason: "ok ☃" }]);
  }
  for (const code of [0, 999, 1004, 1005, 1006, 1015, 1016, 2000, 2999, 5000, 65535]) {
    const failed = refusal(serverFrame({ opcode: Opcode.close, payload: closeBody(code) }));
    assert.equal(failed.code, 1002, `${code}`);
    assert.match(failed.message, new RegExp(`invalid status code ${code}$`));
  }
  assert.deepEqual(decode([serverFrame({ opcode: Opcode.close })]).events, [{
    type: "close",
    code: undefined,
    reason: "",
  }]);
});

Deno.test("a frame over the message limit fails with 1009 as soon as its header is read", () => {
  const header = serverFrame({ opcode: Opcode.text, length: 2 * 1024 * 1024 }); // the header alone
  assert.equal(header.length, 10);
  const decoder = new MessageDecoder();
  decoder.push(header);
  assert.throws(() => decoder.next(), (error: unknown) => {
    assert.ok(error instanceof WsProtocolError);
    assert.equal(error.code, 1009);
    assert.equal(error.message, "the relay sent a 2097152-byte message, over the 1 MiB limit");
    return true;
  });
  // At the limit exactly it is read; one byte over is not.
  const limit = 1024 * 1024;
  assert.equal(decode([serverFrame({ opcode: 2, payload: new Uint8Array(limit) })]).error, undefined);
  assert.equal(refusal(serverFrame({ opcode: 2, length: limit + 1 })).code, 1009);
  assert.match(
    refusal(serverFrame({ opcode: 2, length: 65 }), 64).message,
    /65-byte message, over the 64 bytes limit/,
  );
});

Deno.test("the limit holds across fragments, counting every fragment's declared length", () => {
  const max = 1000;
  const part = (opcode: number, length: number, fin = false) =>
    serverFrame({ opcode, fin, payload: new Uint8Array(length).fill(0x61) });
  const atLimit = decode([joined(part(1, 400), part(0, 400), part(0, 200, true))], max);
  assert.equal(atLimit.error, undefined);
  assert.deepEqual(atLimit.events, [{ type: "text", text: "a".repeat(1000) }]);
  const over = decode([
    joined(part(1, 400), part(0, 400), serverFrame({ opcode: 0, fin: true, length: 201 })),
  ], max);
  assert.equal(over.error?.code, 1009);
  assert.equal(
    over.error?.message,
    "the relay sent a message of at least 1001 bytes in fragments, over the 1000 bytes limit",
  );
  // Control frames do not count toward the message.
  const pinged = decode([
    joined(part(1, 600), serverFrame({ opcode: 9, payload: new Uint8Array(100) }), part(0, 400, true)),
  ], max);
  assert.equal(pinged.error, undefined);
  assert.deepEqual(pinged.events.map((e) => e.type), ["ping", "text"]);
});

Deno.test("fragments: text split inside a multi-byte character, control frames in between, many tiny parts", () => {
  const bytes = encoder.encode("é☃𝄞!");
  // Split after the first byte of each multi-byte character.
  const frames = joined(
    serverFrame({ opcode: 1, fin: false, payload: bytes.subarray(0, 1) }),
    serverFrame({ opcode: 9, payload: "p1" }),
    serverFrame({ opcode: 0, fin: false, payload: bytes.subarray(1, 3) }),
    serverFrame({ opcode: 10, payload: "p2" }),
    serverFrame({ opcode: 0, fin: false, payload: bytes.subarray(3, 7) }),
    serverFrame({ opcode: 0, fin: false, payload: new Uint8Array(0) }),
    serverFrame({ opcode: 0, fin: true, payload: bytes.subarray(7) }),
  );
  assert.deepEqual(decode([frames]).events, [
    { type: "ping", payload: encoder.encode("p1") },
    { type: "pong", payload: encoder.encode("p2") },
    { type: "text", text: "é☃𝄞!" },
  ]);
  const tiny = Array.from(
    { length: 3000 },
    (_, i) => serverFrame({ opcode: i === 0 ? 2 : 0, fin: i === 2999, payload: Uint8Array.of(i & 0xff) }),
  );
  const [message] = decode([joined(...tiny)]).events;
  assert.deepEqual(message, { type: "binary", bytes: Uint8Array.from({ length: 3000 }, (_, i) => i & 0xff) });
});

Deno.test("any chunking gives the same events: byte by byte, and random splits", () => {
  const stream = joined(
    serverFrame({ opcode: 1, payload: "first" }),
    serverFrame({ opcode: 2, payload: new Uint8Array(70000).fill(7) }),
    serverFrame({ opcode: 1, fin: false, payload: encoder.encode("☃").subarray(0, 2) }),
    serverFrame({ opcode: 9, payload: "mid" }),
    serverFrame({ opcode: 0, payload: encoder.encode("☃").subarray(2) }),
    serverFrame({ opcode: 1, payload: "x".repeat(300) }),
    serverFrame({ opcode: 8, payload: closeBody(4000, "done") }),
  );
  const whole = decode([stream]);
  assert.equal(whole.error, undefined);
  assert.deepEqual(whole.events.map((e) => e.type), ["text", "binary", "ping", "text", "text", "close"]);
  const byByte = decode(Array.from(stream, (byte) => Uint8Array.of(byte)));
  assert.deepEqual(byByte, whole);
  for (let seed = 1; seed <= 20; seed++) {
    const next = random(seed);
    const pieces: Uint8Array[] = [];
    for (let at = 0; at < stream.length;) {
      const size = 1 + Math.floor(next() * (next() < 0.5 ? 16 : 20000));
      pieces.push(stream.subarray(at, at + size));
      at += size;
    }
    assert.deepEqual(decode(pieces), whole, `seed ${seed}`);
  }
});

Deno.test("a broken rule is refused as soon as its bytes arrive, whatever follows", () => {
  // Two bytes of a masked frame's header are enough: nothing else need come.
  const decoder = new MessageDecoder();
  decoder.push(Uint8Array.of(0x81));
  assert.equal(decoder.next(), undefined);
  decoder.push(Uint8Array.of(0x85));
  assert.throws(() => decoder.next(), /masked frame/);
  assert.equal(sizeWords(1024 * 1024), "1 MiB");
  assert.equal(sizeWords(64 * 1024), "64 KiB");
  assert.equal(sizeWords(1000), "1000 bytes");
});

Deno.test("what the decoder has taken: whole frames counted, a frame begun, a message left open", () => {
  const decoder = new MessageDecoder();
  const state = () => [decoder.frames, decoder.midFrame, decoder.messageOpen];
  const steps: [Uint8Array, (number | boolean)[], Received | undefined][] = [];
  const feed = (bytes: Uint8Array) => {
    decoder.push(bytes);
    const event = decoder.next();
    steps.push([bytes, state(), event]);
  };
  assert.deepEqual(state(), [0, false, false]);
  const text = serverFrame({ opcode: 1, payload: "hello" });
  for (const byte of text) feed(Uint8Array.of(byte));
  // Each byte but the last leaves a frame begun; only the last makes it whole.
  assert.deepEqual(steps.slice(0, -1).map(([, s]) => s), Array(text.length - 1).fill([0, true, false]));
  assert.deepEqual(steps.at(-1)?.slice(1), [[1, false, false], { type: "text", text: "hello" }]);
  feed(serverFrame({ opcode: 1, fin: false, payload: "a" }));
  assert.deepEqual(state(), [2, false, true], "a first fragment: whole, and the message open");
  feed(joined(serverFrame({ opcode: 0, fin: false, payload: "b" }), serverFrame({ opcode: 0, fin: false })));
  assert.deepEqual(state(), [4, false, true], "fragments in one piece: each counted");
  feed(serverFrame({ opcode: 10 }));
  assert.deepEqual(state(), [5, false, true], "a pong between fragments leaves the message open");
  feed(serverFrame({ opcode: 0, payload: "c" }));
  assert.deepEqual(steps.at(-1)?.slice(1), [[6, false, false], { type: "text", text: "abc" }]);
});
