// The curve (lib/key/curve.ts): libsecp256k1's WASM, interoperable with noble's JavaScript both ways;
// a fallback to the JavaScript that is said once when the WASM cannot load; and whatever the native
// library prints kept off stdout, as one stderr line that carries no key.

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey, getPublicKey, verifyEvent } from "nostr-tools/pure";
import { bytesToHex } from "@noble/hashes/utils.js";
import { type CurveSources, inKeyRange, loadCurve, quietly, redacted } from "../../lib/key/curve.ts";

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
    const mine = { ...TEMPLATE, content: `hello ${i}`, ...curve.sign(TEMPLATE_WITH(i), secret) };
    assert.equal(verifyEvent({ ...mine }), true, "a native signature holds for noble");
    const theirs = finalizeEvent(TEMPLATE_WITH(i), secret);
    assert.equal(curve.verify({ ...theirs }), true, "a noble signature holds for the native curve");
    assert.equal(curve.verify({ ...theirs, content: "changed" }), false);
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
      const event = { ...TEMPLATE, ...curve.sign(TEMPLATE, secret) };
      assert.equal(verifyEvent(event), true);
      assert.equal(curve.verify(event), true);
      assert.equal(curve.verify({ ...event, sig: "f".repeat(128) }), false, "never a throw");
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
