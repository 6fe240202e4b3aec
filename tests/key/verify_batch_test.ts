// Many events checked at once (lib/key/verify_batch.ts): each verdict in order, as one event's check
// would give it; a large batch shared with a worker holding only libsecp256k1, whose version is the
// import map's; a worker that fails or answers nonsense leaves the checks to this thread, never a
// wrong verdict.

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey } from "nostr-tools/pure";
import config from "../../deno.json" with { type: "json" };
import type { SignedEvent } from "../../lib/key/signer.ts";
import { eventVerifier, isSignedEventShape } from "../../lib/key/verify.ts";
import { checkedElsewhere, HELPER_SOURCE, PARALLEL_FROM, verifyBatch } from "../../lib/key/verify_batch.ts";

const secret = generateSecretKey();

/** `n` events as they arrive in JSON: every fifth one altered (forged id, bad signature, loose hex). */
function events(n: number): SignedEvent[] {
  return Array.from({ length: n }, (_, i) => {
    const made = JSON.parse(JSON.stringify(
      finalizeEvent(
        { kind: 1, created_at: 1_700_000_000 + i, tags: [["t", "bulk"]], content: `e ${i}` },
        secret,
      ),
    )) as SignedEvent;
    if (i % 5 !== 4) return made;
    const fault = (i / 5) % 3;
    if (fault < 1) return { ...made, content: `${made.content}!` };
    if (fault < 2) return { ...made, sig: `${made.sig.slice(0, -1)}${made.sig.endsWith("0") ? "1" : "0"}` };
    return { ...made, id: made.id.toUpperCase() };
  });
}

async function oneByOne(list: readonly SignedEvent[]): Promise<boolean[]> {
  const verify = await eventVerifier();
  return await Promise.all(list.map((event) => verify(event)));
}

Deno.test("a small batch: each verdict as one event's check gives it, in order", async () => {
  const list = events(40);
  const verdicts = await verifyBatch(list);
  assert.deepEqual(verdicts, await oneByOne(list));
  assert.equal(verdicts.filter((ok) => !ok).length, 8);
});

Deno.test("the worker checks what it is given, holding no permission at all", async () => {
  const list = events(60);
  const theirs = await checkedElsewhere(list);
  assert.ok(theirs);
  // The worker reads hex loosely, as libsecp256k1's path does: the shape is checked on this side.
  const shaped = list.map((event) => isSignedEventShape(event));
  assert.deepEqual(theirs.map((ok, i) => ok && shaped[i]), await oneByOne(list));
});

Deno.test("a large batch, half checked by the worker: the same verdicts", async () => {
  const list = events(PARALLEL_FROM + 10);
  let asked = 0;
  const verdicts = await verifyBatch(list, (half) => (asked = half.length, checkedElsewhere(half)));
  assert.equal(asked, Math.floor(list.length / 2));
  assert.deepEqual(verdicts, await oneByOne(list));
});

Deno.test("events too large for libsecp256k1's memory: no verdict from the worker, checked here", async () => {
  const large = (content: string) =>
    JSON.parse(
      JSON.stringify(finalizeEvent({ kind: 1, created_at: 1_700_000_000, tags: [], content }, secret)),
    );
  const valid = large("a".repeat(1_000_000));
  const forged = { ...large("b".repeat(1_000_000)), content: `c${"b".repeat(999_999)}` };
  const theirs = await checkedElsewhere([valid, forged, events(1)[0]]);
  assert.deepEqual(theirs, [null, null, true], "the worker says it could not tell, never false");
  const list = [...events(PARALLEL_FROM), valid, forged];
  const verdicts = await verifyBatch(list);
  assert.deepEqual(verdicts.slice(-2), [true, false], "a valid large event holds; a forged one does not");
  assert.deepEqual(verdicts, await oneByOne(list));
});

Deno.test("a worker that fails, or answers with the wrong count: this thread checks its half", async () => {
  const list = events(PARALLEL_FROM);
  const expected = await oneByOne(list);
  assert.deepEqual(await verifyBatch(list, () => Promise.resolve(undefined)), expected);
  // A worker that says every event holds is never asked about one whose shape failed here.
  const lenient = await verifyBatch(list, (half) => Promise.resolve(half.map(() => true)));
  const loose = list.map((event, i) => [event, i] as const).filter(([event]) =>
    event.id !== event.id.toLowerCase()
  );
  for (const [, i] of loose.filter(([, i]) => i >= list.length / 2)) assert.equal(lenient[i], false);
});

Deno.test("the worker's library is the import map's version", () => {
  const pinned = (config.imports as Record<string, string>)["nostr-wasm/"];
  const version = /nostr-wasm@([^/]+)\//.exec(pinned)?.[1];
  assert.ok(version);
  assert.ok(HELPER_SOURCE.includes(`"npm:nostr-wasm@${version}/gzipped"`));
  assert.match(HELPER_SOURCE, /console\[name\] = \(\) => \{\}/, "its console silenced");
});
