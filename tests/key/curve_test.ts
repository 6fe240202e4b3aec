// The curve (lib/key/curve.ts): libsecp256k1's WASM, interoperable with noble's JavaScript both ways;
// a fallback to the JavaScript that is said once when the WASM cannot load; and whatever the native
// library prints kept off stdout, as one stderr line that carries no key.

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey, getPublicKey, verifyEvent } from "nostr-tools/pure";
import { bytesToHex } from "@noble/hashes/utils.js";
import { type CurveSources, inKeyRange, loadCurve, quietly, redacted } from "../../lib/key/curve.ts";
import { NATIVE_MAX_BYTES, serializedBytes } from "../../lib/key/native_bound.ts";

const TEMPLATE = { kind: 9, created_at: 1_700_000_000, tags: [["h", "general"]], content: "hello" };

function recorder(): { lines: string[]; warn(line: string): void } {
  const lines: string[] = [];
  return { lines, warn: (line) => void lines.push(line) };
}

const realSources = (warn: (line: string) => void): CurveSources => ({
  wasm: async () => {
    const [tools, { initNostrWasm }] = await Promise.all([
      import("nostr-tools/wasm"),
      import("nostr-wasm/gzipped"),
    ]);
    return { tools, init: initNostrWasm };
  },
  pure: () => import("nostr-tools/pure"),
  warn,
});

Deno.test("the native curve and noble agree: keys, and signatures verified both ways", async () => {
  const said = recorder();
  const curve = await loadCurve(realSources(said.warn));
  assert.equal(curve.native, true);
  for (let i = 0; i < 20; i++) {
    const secret = generateSecretKey();
    assert.equal(curve.getPublicKey(secret), getPublicKey(secret));
    const mine = { ...TEMPLATE, content: `hello ${i}`, ...await curve.sign(TEMPLATE_WITH(i), secret) };
    assert.equal(verifyEvent({ ...mine }), true, "a native signature holds for noble");
    const theirs = finalizeEvent(TEMPLATE_WITH(i), secret);
    assert.equal(await curve.verify({ ...theirs }), true, "a noble signature holds for the native curve");
    assert.equal(await curve.verify({ ...theirs, content: "changed" }), false);
  }
  assert.deepEqual(said.lines, [], "nothing said when all is well");
});

function TEMPLATE_WITH(i: number) {
  return { ...TEMPLATE, content: `hello ${i}` };
}

Deno.test("a fresh key from the native curve is a valid secp256k1 scalar", async () => {
  const curve = await loadCurve(realSources(() => {}));
  for (let i = 0; i < 50; i++) assert.ok(inKeyRange(curve.generateSecretKey()));
  assert.equal(inKeyRange(new Uint8Array(32)), false, "zero");
  assert.equal(inKeyRange(new Uint8Array(32).fill(0xff)), false, "past the group order");
  assert.equal(inKeyRange(new Uint8Array(31).fill(1)), false, "31 bytes");
});

Deno.test("the WASM cannot load: said once, with why, and signing goes on in JavaScript", async (t) => {
  const cases: [string, Partial<CurveSources>][] = [
    ["its package fails to load", { wasm: () => Promise.reject(new Error("npm package not found")) }],
    [
      "its module fails to start",
      {
        wasm: async () => ({
          tools: await import("nostr-tools/wasm"),
          init: () => Promise.reject(new WebAssembly.CompileError("WebAssembly.instantiate(): bad magic")),
        }),
      },
    ],
  ];
  for (const [name, override] of cases) {
    await t.step(name, async () => {
      const said = recorder();
      const curve = await loadCurve({ ...realSources(said.warn), ...override });
      assert.equal(curve.native, false);
      assert.equal(said.lines.length, 1, "said once");
      assert.match(said.lines[0], /the native signer \(libsecp256k1 in WebAssembly\) could not load \(.+\)/);
      assert.match(said.lines[0], /in JavaScript instead/);
      const secret = generateSecretKey();
      const event = { ...TEMPLATE, ...await curve.sign(TEMPLATE, secret) };
      assert.equal(verifyEvent(event), true);
      assert.equal(await curve.verify(event), true);
      assert.equal(await curve.verify({ ...event, sig: "f".repeat(128) }), false, "never a throw");
      assert.equal(said.lines.length, 1, "and not again");
    });
  }
  await t.step("neither loads: the fallback's failure is the one given", async () => {
    const failing = {
      ...realSources(() => {}),
      wasm: () => Promise.reject(new Error("one")),
      pure: () => Promise.reject(new Error("two")),
    };
    await assert.rejects(loadCurve(failing), /two/);
  });
});

Deno.test("what the native library prints stays off stdout and names no key", async (t) => {
  const said = recorder();
  const curve = await loadCurve(realSources(said.warn));
  await t.step("signing with a key of zeros: it throws, and its words become one stderr line", () => {
    const printed: unknown[] = [];
    const { log, debug } = console;
    console.log = console.debug = (...parts: unknown[]) => void printed.push(parts);
    try {
      assert.throws(() => curve.sign(TEMPLATE, new Uint8Array(32)));
    } finally {
      Object.assign(console, { log, debug });
    }
    assert.deepEqual(printed, [], "nothing through console.log or console.debug (tinyagent's stdout)");
    assert.equal(said.lines.length, 1);
    assert.match(said.lines[0], /^the signing library said: .*libsecp256k1/);
    assert.doesNotMatch(said.lines[0], /0{32}/, "no key-shaped run of hex");
  });
  await t.step("a line holding key material is redacted", () => {
    const key = bytesToHex(generateSecretKey());
    const lines = recorder();
    quietly(() => console.error(`failed for ${key} and nsec1qqqqqqqqqqqqqqqqqqqqqqqqqq`), lines.warn);
    assert.equal(lines.lines.length, 1);
    assert.ok(!lines.lines[0].includes(key));
    assert.ok(!lines.lines[0].includes("nsec1"));
    assert.equal(redacted(`a\u202eb ${key.toUpperCase()}`), "a b [hex]");
  });
  await t.step("the console is given back, even when the work throws", () => {
    const { error, debug } = console;
    assert.throws(() =>
      quietly(() => {
        throw new Error("x");
      }, () => {})
    );
    assert.equal(console.error, error);
    assert.equal(console.debug, debug);
  });
});

/** A template whose content is `bytes` long: the websocket's 1 MiB message holds events up to ~1 MiB. */
const sized = (bytes: number) => ({ ...TEMPLATE, kind: 30023, content: "x".repeat(bytes) });

/** Sources that count how often the JavaScript curve is loaded, optionally with a library in between. */
function counted(warn: (line: string) => void, library?: (real: Library) => Library) {
  const counts = { pure: 0 };
  const real = realSources(warn);
  const sources: CurveSources = {
    ...real,
    wasm: async () => {
      const { tools, init } = await real.wasm();
      return { tools, init: async () => library ? library(await init()) : await init() };
    },
    pure: () => (counts.pure++, real.pure()),
  };
  return { counts, sources };
}

type Library = Awaited<ReturnType<Awaited<ReturnType<CurveSources["wasm"]>>["init"]>>;

Deno.test("events up to the websocket's bound are signed and checked, past the WASM's memory in JavaScript", async (t) => {
  const said = recorder();
  const { counts, sources } = counted(said.warn);
  const curve = await loadCurve(sources);
  const secret = generateSecretKey();
  const overhead = serializedBytes(sized(0));
  await t.step("small events never load the JavaScript curve, and are answered at once", () => {
    const signature = curve.sign(TEMPLATE, secret);
    assert.ok(!(signature instanceof Promise));
    assert.equal(curve.verify({ ...TEMPLATE, ...signature }), true);
    assert.equal(counts.pure, 0);
  });
  const sizes: [string, number][] = [
    ["in between", 500_000],
    ["at the native bound", NATIVE_MAX_BYTES - overhead],
    ["one byte past it", NATIVE_MAX_BYTES - overhead + 1],
    ["past what the WASM's memory holds", 945_613],
    ["1,000,000 bytes (a long post_message)", 1_000_000],
    ["1 MiB", 1024 * 1024],
  ];
  for (const [name, bytes] of sizes) {
    await t.step(`${name}: signed, valid for noble, checked, and a forgery refused`, async () => {
      const template = sized(bytes);
      const event = { ...template, ...await curve.sign(template, secret) };
      assert.equal(verifyEvent({ ...event }), true, "noble agrees");
      assert.equal(await curve.verify(event), true, "a valid event is never taken for a forgery");
      assert.equal(await curve.verify({ ...event, content: `${event.content.slice(1)}y` }), false);
      assert.equal(await curve.verify({ ...event, sig: `${event.sig.slice(0, -2)}00` }), false);
      const theirs = finalizeEvent({ ...template }, secret);
      assert.equal(await curve.verify({ ...theirs }), true, "noble's signature of it holds too");
    });
  }
  assert.equal(counts.pure, 1, "the JavaScript curve loaded once, on the first event that needed it");
  assert.deepEqual(said.lines, [], "nothing said: this is no failure");
});

Deno.test("the WASM failing for want of memory is no verdict: the event is checked and signed in JavaScript", async () => {
  const outOfMemory = () => {
    throw new Error("nostr-wasm: Out of memory (resizing 1155072)");
  };
  const { counts, sources } = counted(
    () => {},
    (real) => ({ ...real, verifyEvent: outOfMemory, finalizeEvent: outOfMemory }),
  );
  const curve = await loadCurve(sources);
  const secret = generateSecretKey();
  const event = finalizeEvent({ ...TEMPLATE }, secret);
  assert.equal(await curve.verify({ ...event }), true, "never false for a valid event it could not hold");
  assert.equal(await curve.verify({ ...event, content: "forged" }), false);
  const mine = { ...TEMPLATE, ...await curve.sign(TEMPLATE, secret) };
  assert.equal(verifyEvent(mine), true);
  assert.equal(counts.pure, 1);
});

Deno.test("the JavaScript curve cannot load when a large event needs it: a clear failure, tried again next time", async () => {
  let fail = true;
  const real = realSources(() => {});
  const curve = await loadCurve({
    ...real,
    pure: () => fail ? Promise.reject(new Error("npm package '@noble/curves' not found")) : real.pure(),
  });
  const secret = generateSecretKey();
  const large = sized(1_000_000);
  await assert.rejects(
    Promise.resolve(curve.sign(large, secret)),
    /the JavaScript signer, needed for an event over 786432 bytes, could not load: npm package '@noble\/curves' not found/,
  );
  fail = false;
  const event = { ...large, ...await curve.sign(large, secret) };
  assert.equal(await curve.verify(event), true);
});

Deno.test("past the native bound the WASM is not even asked; at it, it is", async () => {
  const asked: number[] = [];
  const { sources } = counted(() => {}, (real) => ({
    ...real,
    verifyEvent: (event) => (asked.push(event.content.length), real.verifyEvent(event)),
    finalizeEvent: (event, key) => (asked.push(event.content.length), real.finalizeEvent(event, key)),
  }));
  const curve = await loadCurve(sources);
  const secret = generateSecretKey();
  const at = NATIVE_MAX_BYTES - serializedBytes(sized(0));
  for (const bytes of [at, at + 1]) {
    const event = { ...sized(bytes), ...await curve.sign(sized(bytes), secret) };
    assert.equal(await curve.verify(event), true);
  }
  assert.deepEqual(asked, [at, at], "signed and checked natively at the bound, never one byte past it");
});
