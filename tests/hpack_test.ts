// HPACK (RFC 7541): every Appendix C example byte for byte, Huffman codes checked against Appendix B,
// encoder round trips, limits, and a seeded decoder fuzz where only HpackError may escape.

import assert from "node:assert/strict";
import {
  encodeHeaders,
  encodeInteger,
  HpackDecoder,
  HpackError,
  HpackReader,
  huffmanDecode,
  huffmanEncode,
  isValidFieldName,
  STATIC_TABLE,
} from "../lib/hpack.ts";

/** "8286 8441" → bytes; the RFC's dumps pasted with their spaces. */
const hex = (dump: string) =>
  Uint8Array.from(dump.replace(/\s+/g, "").match(/../g) ?? [], (b) => parseInt(b, 16));
const toHex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
const text = (s: string) => new TextEncoder().encode(s);
const fields = (list: string) =>
  list.trim().split("\n").map((line): [string, string] => {
    const colon = line.indexOf(": ", 1); // skip a pseudo-header's leading colon
    return [line.slice(0, colon), line.slice(colon + 2)];
  });

// Appendix B, "code as hex:len in bits" for symbols 0-255, transcribed from the RFC (EOS is 30 ones).
const APPENDIX_B = (
  "1ff8:13 7fffd8:23 fffffe2:28 fffffe3:28 fffffe4:28 fffffe5:28 fffffe6:28 fffffe7:28 fffffe8:28 " +
  "ffffea:24 3ffffffc:30 fffffe9:28 fffffea:28 3ffffffd:30 fffffeb:28 fffffec:28 fffffed:28 " +
  "fffffee:28 fffffef:28 ffffff0:28 ffffff1:28 ffffff2:28 3ffffffe:30 ffffff3:28 ffffff4:28 " +
  "ffffff5:28 ffffff6:28 ffffff7:28 ffffff8:28 ffffff9:28 ffffffa:28 ffffffb:28 14:6 3f8:10 3f9:10 " +
  "ffa:12 1ff9:13 15:6 f8:8 7fa:11 3fa:10 3fb:10 f9:8 7fb:11 fa:8 16:6 17:6 18:6 0:5 1:5 2:5 19:6 " +
  "1a:6 1b:6 1c:6 1d:6 1e:6 1f:6 5c:7 fb:8 7ffc:15 20:6 ffb:12 3fc:10 1ffa:13 21:6 5d:7 5e:7 5f:7 " +
  "60:7 61:7 62:7 63:7 64:7 65:7 66:7 67:7 68:7 69:7 6a:7 6b:7 6c:7 6d:7 6e:7 6f:7 70:7 71:7 72:7 " +
  "fc:8 73:7 fd:8 1ffb:13 7fff0:19 1ffc:13 3ffc:14 22:6 7ffd:15 3:5 23:6 4:5 24:6 5:5 25:6 26:6 " +
  "27:6 6:5 74:7 75:7 28:6 29:6 2a:6 7:5 2b:6 76:7 2c:6 8:5 9:5 2d:6 77:7 78:7 79:7 7a:7 7b:7 " +
  "7ffe:15 7fc:11 3ffd:14 1ffd:13 ffffffc:28 fffe6:20 3fffd2:22 fffe7:20 fffe8:20 3fffd3:22 " +
  "3fffd4:22 3fffd5:22 7fffd9:23 3fffd6:22 7fffda:23 7fffdb:23 7fffdc:23 7fffdd:23 7fffde:23 " +
  "ffffeb:24 7fffdf:23 ffffec:24 ffffed:24 3fffd7:22 7fffe0:23 ffffee:24 7fffe1:23 7fffe2:23 " +
  "7fffe3:23 7fffe4:23 1fffdc:21 3fffd8:22 7fffe5:23 3fffd9:22 7fffe6:23 7fffe7:23 ffffef:24 " +
  "3fffda:22 1fffdd:21 fffe9:20 3fffdb:22 3fffdc:22 7fffe8:23 7fffe9:23 1fffde:21 7fffea:23 " +
  "3fffdd:22 3fffde:22 fffff0:24 1fffdf:21 3fffdf:22 7fffeb:23 7fffec:23 1fffe0:21 1fffe1:21 " +
  "3fffe0:22 1fffe2:21 7fffed:23 3fffe1:22 7fffee:23 7fffef:23 fffea:20 3fffe2:22 3fffe3:22 " +
  "3fffe4:22 7ffff0:23 3fffe5:22 3fffe6:22 7ffff1:23 3ffffe0:26 3ffffe1:26 fffeb:20 7fff1:19 " +
  "3fffe7:22 7ffff2:23 3fffe8:22 1ffffec:25 3ffffe2:26 3ffffe3:26 3ffffe4:26 7ffffde:27 7ffffdf:27 " +
  "3ffffe5:26 fffff1:24 1ffffed:25 7fff2:19 1fffe3:21 3ffffe6:26 7ffffe0:27 7ffffe1:27 3ffffe7:26 " +
  "7ffffe2:27 fffff2:24 1fffe4:21 1fffe5:21 3ffffe8:26 3ffffe9:26 ffffffd:28 7ffffe3:27 7ffffe4:27 " +
  "7ffffe5:27 fffec:20 fffff3:24 fffed:20 1fffe6:21 3fffe9:22 1fffe7:21 1fffe8:21 7ffff3:23 " +
  "3fffea:22 3fffeb:22 1ffffee:25 1ffffef:25 fffff4:24 fffff5:24 3ffffea:26 7ffff4:23 3ffffeb:26 " +
  "7ffffe6:27 3ffffec:26 3ffffed:26 7ffffe7:27 7ffffe8:27 7ffffe9:27 7ffffea:27 7ffffeb:27 " +
  "ffffffe:28 7ffffec:27 7ffffed:27 7ffffee:27 7ffffef:27 7fffff0:27 3ffffee:26 "
).trim().split(" ");

/** xorshift32: small, seeded, reproducible. */
function rng(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>>= 0) / 2 ** 32;
  };
}

Deno.test("C.1 integer representation", async (t) => {
  const cases: [string, number, number, string][] = [
    ["C.1.1 10 with a 5-bit prefix", 10, 5, "0a"],
    ["C.1.2 1337 with a 5-bit prefix", 1337, 5, "1f9a0a"],
    ["C.1.3 42 at an octet boundary", 42, 8, "2a"],
  ];
  for (const [name, value, prefix, dump] of cases) {
    await t.step(name, () => {
      assert.equal(toHex(Uint8Array.from(encodeInteger(value, prefix))), dump);
      const reader = new HpackReader(hex(dump));
      assert.equal(reader.integer(prefix), value);
      assert.ok(reader.done);
    });
  }
  await t.step("prefix bits above N are ignored", () => {
    assert.equal(new HpackReader(hex("ea")).integer(5), 10);
  });
});

Deno.test("C.2 header field representations", async (t) => {
  const cases: [string, string, string, [string, string][], number][] = [
    [
      "C.2.1 literal with indexing",
      "400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572",
      "custom-key: custom-header",
      [["custom-key", "custom-header"]],
      55,
    ],
    ["C.2.2 literal without indexing", "040c 2f73 616d 706c 652f 7061 7468", ":path: /sample/path", [], 0],
    ["C.2.3 literal never indexed", "1008 7061 7373 776f 7264 0673 6563 7265 74", "password: secret", [], 0],
    ["C.2.4 indexed", "82", ":method: GET", [], 0],
  ];
  for (const [name, dump, list, table, size] of cases) {
    await t.step(name, () => {
      const decoder = new HpackDecoder();
      assert.deepEqual(decoder.decode(hex(dump)), fields(list));
      assert.deepEqual(decoder.dynamicTable, table);
      assert.equal(decoder.tableSize, size);
    });
  }
});

const REQUESTS = [
  fields(":method: GET\n:scheme: http\n:path: /\n:authority: www.example.com"),
  fields(":method: GET\n:scheme: http\n:path: /\n:authority: www.example.com\ncache-control: no-cache"),
  fields(
    ":method: GET\n:scheme: https\n:path: /index.html\n:authority: www.example.com\ncustom-key: custom-value",
  ),
];
const REQUEST_TABLES: [[string, string][], number][] = [
  [fields(":authority: www.example.com"), 57],
  [fields("cache-control: no-cache\n:authority: www.example.com"), 110],
  [fields("custom-key: custom-value\ncache-control: no-cache\n:authority: www.example.com"), 164],
];
const DATE1 = "date: Mon, 21 Oct 2013 20:13:21 GMT";
const DATE2 = "date: Mon, 21 Oct 2013 20:13:22 GMT";
const LOCATION = "location: https://www.example.com";
const COOKIE = "set-cookie: foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1";
const RESPONSES = [
  fields(`:status: 302\ncache-control: private\n${DATE1}\n${LOCATION}`),
  fields(`:status: 307\ncache-control: private\n${DATE1}\n${LOCATION}`),
  fields(`:status: 200\ncache-control: private\n${DATE2}\n${LOCATION}\ncontent-encoding: gzip\n${COOKIE}`),
];
const RESPONSE_TABLES: [[string, string][], number][] = [
  [fields(`${LOCATION}\n${DATE1}\ncache-control: private\n:status: 302`), 222],
  [fields(`:status: 307\n${LOCATION}\n${DATE1}\ncache-control: private`), 222],
  [fields(`${COOKIE}\ncontent-encoding: gzip\n${DATE2}`), 215],
];

/** Decodes the RFC's blocks in sequence on one decoder, checking the list and table after each. */
async function sequence(
  t: Deno.TestContext,
  decoder: HpackDecoder,
  dumps: string[],
  lists: [string, string][][],
  tables: [[string, string][], number][],
) {
  for (const [i, dump] of dumps.entries()) {
    await t.step(`block ${i + 1}`, () => {
      assert.deepEqual(decoder.decode(hex(dump)), lists[i]);
      assert.deepEqual(decoder.dynamicTable, tables[i][0]);
      assert.equal(decoder.tableSize, tables[i][1]);
    });
  }
}

Deno.test("C.3 requests without Huffman", async (t) => {
  await sequence(
    t,
    new HpackDecoder(),
    [
      "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
      "8286 84be 5808 6e6f 2d63 6163 6865",
      "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
    ],
    REQUESTS,
    REQUEST_TABLES,
  );
});

Deno.test("C.4 requests with Huffman", async (t) => {
  await sequence(
    t,
    new HpackDecoder(),
    [
      "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
      "8286 84be 5886 a8eb 1064 9cbf",
      "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
    ],
    REQUESTS,
    REQUEST_TABLES,
  );
});

Deno.test("C.5 responses without Huffman, table size 256", async (t) => {
  await sequence(
    t,
    new HpackDecoder({ maxTableSize: 256 }),
    [
      "4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32" +
      "3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
      "4803 3330 37c1 c0bf",
      "88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970" +
      "7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61" +
      "6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31",
    ],
    RESPONSES,
    RESPONSE_TABLES,
  );
});

Deno.test("C.6 responses with Huffman, table size 256", async (t) => {
  await sequence(
    t,
    new HpackDecoder({ maxTableSize: 256 }),
    [
      "4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad" +
      "1718 63c7 8f0b 97c8 e9ae 82ae 43d3",
      "4883 640e ffc1 c0bf",
      "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2" +
      "e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07",
    ],
    RESPONSES,
    RESPONSE_TABLES,
  );
});

Deno.test("static table (Appendix A)", () => {
  assert.equal(STATIC_TABLE.length, 61);
  const spots: [number, string, string][] = [
    [1, ":authority", ""],
    [16, "accept-encoding", "gzip, deflate"],
    [23, "authorization", ""],
    [31, "content-type", ""],
    [61, "www-authenticate", ""],
  ];
  for (const [index, name, value] of spots) assert.deepEqual(STATIC_TABLE[index - 1], [name, value]);
});

Deno.test("Huffman code (Appendix B)", async (t) => {
  await t.step("all 256 codes match the RFC table", () => {
    // Encoded alone, a symbol is its code padded with ones to an octet boundary.
    for (const [symbol, entry] of APPENDIX_B.entries()) {
      const [code, length] = [BigInt("0x" + entry.split(":")[0]), Number(entry.split(":")[1])];
      const padding = (8 - (length % 8)) % 8;
      const bits = (code << BigInt(padding)) | ((1n << BigInt(padding)) - 1n);
      const expected = bits.toString(16).padStart((length + padding) / 4, "0");
      assert.equal(toHex(huffmanEncode(Uint8Array.of(symbol))), expected, `symbol ${symbol}`);
    }
  });
  await t.step("RFC examples", () => {
    const examples: [string, string][] = [
      ["www.example.com", "f1e3 c2e5 f23a 6ba0 ab90 f4ff"],
      ["no-cache", "a8eb 1064 9cbf"],
      ["custom-key", "25a8 49e9 5ba9 7d7f"],
      ["custom-value", "25a8 49e9 5bb8 e8b4 bf"],
      ["302", "6402"],
      ["private", "aec3 771a 4b"],
      ["Mon, 21 Oct 2013 20:13:21 GMT", "d07a be94 1054 d444 a820 0595 040b 8166 e082 a62d 1bff"],
      ["https://www.example.com", "9d29 ad17 1863 c78f 0b97 c8e9 ae82 ae43 d3"],
    ];
    for (const [plain, dump] of examples) {
      assert.equal(toHex(huffmanEncode(text(plain))), toHex(hex(dump)));
      assert.deepEqual(huffmanDecode(hex(dump)), text(plain));
    }
  });
  await t.step("every byte value round-trips", () => {
    for (let byte = 0; byte < 256; byte++) {
      const one = Uint8Array.of(byte);
      assert.deepEqual(huffmanDecode(huffmanEncode(one)), one);
    }
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    assert.deepEqual(huffmanDecode(huffmanEncode(all)), all);
  });
  await t.step("seeded random strings round-trip", () => {
    const seed = 0x7541;
    const random = rng(seed);
    for (let i = 0; i < 500; i++) {
      const bytes = Uint8Array.from({ length: Math.floor(random() * 100) }, () => Math.floor(random() * 256));
      assert.deepEqual(huffmanDecode(huffmanEncode(bytes)), bytes, `seed ${seed}, string ${i}`);
    }
  });
  await t.step("the 8/5 worst case: 5-bit symbols only", () => {
    const zeros = text("0".repeat(1000));
    assert.deepEqual(huffmanDecode(huffmanEncode(zeros)), zeros);
  });
  await t.step("bad padding and EOS are refused", () => {
    const bad: [string, string][] = [
      ["8 bits of padding", "ff"],
      ["'a' then 11 bits of padding", "1fff"],
      ["padding not all ones ('a' then 000)", "18"],
      ["EOS inside the string", "ffff fffc"],
      ["EOS then a symbol", "ffff ffff 00"],
      ["a partial long code at the end", "ffff fe"],
    ];
    for (const [why, dump] of bad) assert.throws(() => huffmanDecode(hex(dump)), HpackError, why);
  });
});

Deno.test("encodeHeaders", async (t) => {
  await t.step("round-trips through HpackDecoder", () => {
    const headers: [string, string][] = [
      [":method", "POST"],
      [":scheme", "https"],
      [":path", "/v1/run?x=1"],
      [":authority", "relay.example:8443"],
      ["content-type", "application/json"],
      ["authorization", "Nostr eyJraW5kIjoyNzIzNX0="],
      ["x-empty", ""],
      ["x-utf8", "héllo — ✓ 日本 🚀"],
      ["x-bytes", "\u0000\u007f\u00ff"],
    ];
    assert.deepEqual(new HpackDecoder().decode(encodeHeaders(headers)), headers);
    assert.deepEqual(new HpackDecoder().decode(encodeHeaders([])), []);
  });
  await t.step("uses static name indexes, without indexing", () => {
    const prefixes: [string, string][] = [
      [":method", "02"],
      [":path", "04"],
      ["authorization", "0f08"], // 23 = 15 + 8 on a 4-bit prefix
      ["content-type", "0f10"], // 31 = 15 + 16
      ["x-custom", "00"], // literal name
    ];
    for (const [name, prefix] of prefixes) {
      assert.ok(toHex(encodeHeaders([[name, "v"]])).startsWith(prefix), name);
    }
  });
  await t.step("Huffman only when shorter", () => {
    assert.equal(toHex(encodeHeaders([[":authority", "www.example.com"]])), "018cf1e3c2e5f23a6ba0ab90f4ff");
    assert.equal(toHex(encodeHeaders([[":path", "{}"]])), "04027b7d"); // 29 bits, 4 octets, in Huffman
  });
});

Deno.test("field names", () => {
  // Names come back as latin1 and unvalidated; the HTTP/2 layer rejects them with isValidFieldName.
  const decoded = new HpackDecoder().decode(hex("0003 4162 ff01 76"));
  assert.deepEqual(decoded, [["Ab\u00ff", "v"]]);
  assert.equal(isValidFieldName(decoded[0][0]), false);
  for (const name of [":status", "content-type", "x-a_b.c~1"]) assert.ok(isValidFieldName(name), name);
  for (const name of ["Content-Type", "a b", "", ":", "a:b", "é"]) assert.ok(!isValidFieldName(name), name);
});

Deno.test("limits and refusals", async (t) => {
  const refuse = (block: Uint8Array, decoder = new HpackDecoder()) =>
    assert.throws(() => decoder.decode(block), HpackError);
  await t.step("header list over maxHeaderListSize", () => {
    const big: [string, string][] = [["x-big", "a".repeat(100)]]; // 5 + 100 + 32 = 137 octets
    assert.equal(new HpackDecoder({ maxHeaderListSize: 137 }).decode(encodeHeaders(big)).length, 1);
    refuse(encodeHeaders(big), new HpackDecoder({ maxHeaderListSize: 136 }));
    refuse(encodeHeaders(Array(3).fill(["x-a", "b"])), new HpackDecoder({ maxHeaderListSize: 100 }));
  });
  await t.step("indexed references cannot amplify past the limit", () => {
    const decoder = new HpackDecoder();
    const entry = Uint8Array.of(0x40, ...encodeInteger(5, 7), ...text("x-big"), ...encodeInteger(4000, 7));
    decoder.decode(Uint8Array.of(...entry, ...text("a".repeat(4000))));
    assert.equal(decoder.decode(hex("be")).length, 1);
    refuse(new Uint8Array(17).fill(0xbe), decoder); // 17 × 4037 > 64 KiB from 17 octets
  });
  await t.step("table size updates", () => {
    assert.deepEqual(new HpackDecoder().decode(Uint8Array.from(encodeInteger(4096, 5, 0x20))), []);
    assert.deepEqual(new HpackDecoder().decode(hex("20 3fe11f 82")), [[":method", "GET"]]); // two updates
    refuse(Uint8Array.from(encodeInteger(4097, 5, 0x20)));
    refuse(Uint8Array.from(encodeInteger(257, 5, 0x20)), new HpackDecoder({ maxTableSize: 256 }));
    refuse(hex("82 20"));
  });
  await t.step("an update to 0 empties the table", () => {
    const decoder = new HpackDecoder();
    decoder.decode(hex("4100")); // :authority: "" inserted
    assert.equal(decoder.tableSize, 42);
    assert.deepEqual(decoder.decode(hex("20")), []);
    assert.equal(decoder.tableSize, 0);
    refuse(hex("be"), decoder);
  });
  await t.step("an entry larger than the table empties it without error", () => {
    const decoder = new HpackDecoder({ maxTableSize: 64 });
    decoder.decode(hex("4100"));
    decoder.decode(encodeHeaders([])); // no-op
    assert.deepEqual(decoder.decode(Uint8Array.of(0x41, 40, ...text("x".repeat(40)))), [[
      ":authority",
      "x".repeat(40),
    ]]);
    assert.deepEqual(decoder.dynamicTable, []);
  });
  await t.step("bad indexes", () => {
    for (const dump of ["80", "be", "ff00", "7e00", "4e00 bf", "0f2f 00", "1f2f 00"]) refuse(hex(dump));
  });
  await t.step("truncated integers and strings", () => {
    for (const dump of ["ff", "ff80", "1f", "400a 6375", "000a", "0003 6162 6301 ", "4f", "0081", "04"]) {
      refuse(hex(dump));
    }
  });
  await t.step("huge integers", () => {
    for (const dump of ["ffff ffff ffff ff7f", "ff80 8080 8080 8080 8001", "3fff ffff ff0f"]) {
      refuse(hex(dump));
    }
    assert.throws(() => new HpackReader(hex("1fe1 ffff ff0f")).integer(5), HpackError);
    assert.equal(new HpackReader(hex("1fe0 ffff ff0f")).integer(5), 2 ** 32 - 1);
  });
});

Deno.test("decoder fuzz: only HpackError, bounded output", () => {
  const seed = 0x2a2a7541;
  console.log(`hpack fuzz seed ${seed}`);
  const random = rng(seed);
  const int = (n: number) => Math.floor(random() * n);
  const corpus = [
    hex("8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff"),
    hex("4803 3330 37c1 c0bf"),
    hex("8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf"),
    encodeHeaders([[":status", "200"], ["content-type", "text/plain"], ["x-u", "ü".repeat(30)]]),
  ];
  const limit = 2048;
  let decoder = new HpackDecoder({ maxTableSize: 512, maxHeaderListSize: limit });
  let refused = 0;
  for (let i = 0; i < 2000; i++) {
    let block: Uint8Array;
    if (i % 2 === 0) block = Uint8Array.from({ length: int(64) }, () => int(256));
    else {
      block = corpus[int(corpus.length)].slice(0, 1 + int(80));
      for (let flips = 1 + int(3); flips > 0; flips--) block[int(block.length)] ^= 1 << int(8);
    }
    try {
      const list = decoder.decode(block);
      const size = list.reduce((sum, [n, v]) => sum + text(n).length + text(v).length + 32, 0);
      assert.ok(size <= limit * 3, `block ${i}: ${size} octets`); // UTF-8 re-encoding may grow U+FFFD
      assert.ok(decoder.tableSize <= decoder.maxTableSize);
    } catch (error) {
      if (!(error instanceof HpackError)) {
        throw new Error(`seed ${seed}, block ${i}: ${toHex(block)}`, { cause: error });
      }
      refused++;
      decoder = new HpackDecoder({ maxTableSize: 512, maxHeaderListSize: limit }); // the connection is gone
    }
  }
  assert.ok(refused > 0 && refused < 2000, `${refused} refused`);
});
