// 9. The signer: tinyagent's native curve (lib/key/curve.ts's loadCurve: libsecp256k1 in WebAssembly)
// against nostr-tools' `pure` entry (noble's JavaScript), used directly. In this one process, taking
// turns batch by batch: signing throughput (events/s: the id's hash and the BIP-340 signature, one
// key, as the agent signs) and verifying throughput over distinct plain-JSON events from 16 authors
// (parsed from text, so no object carries nostr-tools' verified mark and every check is done in full). Then, in fresh processes spawned in
// turn, the time from spawn to the first signature printed (bench/first_sign_native.ts and
// bench/first_sign_pure.ts: loading the curve, then one signature).

import * as pure from "nostr-tools/pure";
import { type Curve, loadCurve } from "../../lib/key/curve.ts";
import { LineChild } from "./child.ts";
import { fixture } from "./fixture.ts";
import type { BenchResult, Target } from "./report.ts";
import { median, ms, ratioInterval, summarize, times } from "./stats.ts";
import { rotation, takeTurns } from "./turns.ts";

export interface SignerOptions {
  /** Events each side signs, and verifies, after a warm-up batch. */
  events: number;
  batch: number;
  /** Fresh processes each for the first signature. */
  spawns: number;
  /** The least native / pure throughput. */
  limit: number;
  log(line: string): void;
}

type Side = "native" | "pure";
const SIDES: Side[] = ["native", "pure"];

type Template = { kind: number; created_at: number; tags: string[][]; content: string };
type SignedEvent = Template & { id: string; pubkey: string; sig: string };

const template = (n: number): Template => ({
  kind: 1,
  created_at: 1767225600 + n,
  tags: [["t", "bench"]],
  content: `signer benchmark event ${n}`,
});

/** A curve's answer for an event the native library holds, which is never a promise. */
function now<T>(answer: T | Promise<T>): T {
  if (answer instanceof Promise) throw new Error("the benchmark's events are small: answered at once");
  return answer;
}

/** The two signers and verifiers, each as tinyagent or a plain nostr-tools user calls it. */
function sidesOf(curve: Curve) {
  return {
    sign: {
      native: (t: Template, key: Uint8Array) => now(curve.sign(t, key)).sig,
      pure: (t: Template, key: Uint8Array) => pure.finalizeEvent({ ...t }, key).sig,
    },
    verify: {
      native: (event: SignedEvent) => now(curve.verify(event)),
      pure: (event: SignedEvent) => pure.verifyEvent(event),
    },
  };
}

/** Events/s of each side, one figure per batch. */
async function throughput(curve: Curve, options: SignerOptions) {
  const key = pure.generateSecretKey();
  const { sign, verify } = sidesOf(curve);
  const batch = options.batch;
  const signed: Record<Side, number> = { native: 0, pure: 0 };
  const signRate = (side: Side) => {
    const started = performance.now();
    for (let i = 0; i < batch; i++) sign[side](template(signed[side]++), key);
    return batch / ((performance.now() - started) / 1000);
  };
  for (const side of SIDES) signRate(side); // warm-up: JIT, and noble's tables
  const signs = await takeTurns(
    SIDES,
    Math.ceil(options.events / batch),
    1,
    (side) => Promise.resolve(signRate(side)),
  );

  // Distinct events from 16 authors (as a relay's answer has them), signed once, held as JSON text;
  // each side checks its own fresh parse of each.
  const authors = Array.from({ length: 16 }, () => pure.generateSecretKey());
  const total = options.events + batch;
  const texts = Array.from(
    { length: total },
    (_, n) => JSON.stringify(pure.finalizeEvent(template(n), authors[n % authors.length])),
  );
  const events: Record<Side, SignedEvent[]> = {
    native: texts.map((text) => JSON.parse(text)),
    pure: texts.map((text) => JSON.parse(text)),
  };
  const used: Record<Side, number> = { native: 0, pure: 0 };
  const verifyRate = (side: Side) => {
    const list = events[side];
    const from = used[side];
    used[side] += batch;
    const started = performance.now();
    let valid = 0;
    for (let i = from; i < from + batch; i++) if (verify[side](list[i])) valid++;
    const rate = batch / ((performance.now() - started) / 1000);
    if (valid !== batch) throw new Error(`signer: ${side} found ${batch - valid} of ${batch} events invalid`);
    return rate;
  };
  for (const side of SIDES) verifyRate(side);
  const verifies = await takeTurns(
    SIDES,
    options.events / batch,
    1,
    (side) => Promise.resolve(verifyRate(side)),
  );
  return { signs, verifies };
}

/** spawn → the first signature's line, for each script in turn. */
async function firstSignatures(options: SignerOptions) {
  const fx = await fixture({ keepAlive: true });
  const samples: Record<Side, number[]> = { native: [], pure: [] };
  const inside: Record<Side, { loaded: number[]; signed: number[] }> = {
    native: { loaded: [], signed: [] },
    pure: { loaded: [], signed: [] },
  };
  try {
    for (let i = -1; i < options.spawns; i++) {
      for (const side of rotation(SIDES, Math.max(i, 0))) {
        const child = new LineChild(fx.spec(side === "native" ? "first-sign-native" : "first-sign-pure"));
        try {
          const line = await child.nextLine();
          const said = JSON.parse(new TextDecoder().decode(line.bytes));
          if (said.curve !== side) throw new Error(`signer: ${side} script signed with ${said.curve}`);
          if (i < 0) continue; // one warm-up spawn each
          samples[side].push(line.at - child.spawnedAt);
          inside[side].loaded.push(said.loaded);
          inside[side].signed.push(said.signed);
        } finally {
          await child.close();
        }
      }
    }
  } finally {
    await fx.close();
  }
  return { samples, inside };
}

export async function signer(options: SignerOptions): Promise<BenchResult> {
  const curve = await loadCurve();
  if (!curve.native) {
    throw new Error("signer: the native curve did not load here, so there is nothing to compare");
  }
  const { signs, verifies } = await throughput(curve, options);
  options.log("signer: throughput done");
  const first = await firstSignatures(options);
  options.log("signer: first signatures done");
  const rate = (values: number[]) => `${Math.round(median(values)).toLocaleString("en-US")} /s`;
  const targets: Target[] = [];
  const rows: string[][] = [];
  for (const [what, samples] of [["sign", signs], ["verify", verifies]] as const) {
    const ratio = median(samples.native) / median(samples.pure);
    const [low, high] = ratioInterval(samples.native, samples.pure);
    rows.push([
      `${what} throughput (events/s, median of ${samples.native.length} batches of ${options.batch})`,
      rate(samples.native),
      rate(samples.pure),
      `${times(ratio)} (95% ${times(low)} – ${times(high)})`,
    ]);
    targets.push({
      what: `${what} throughput native / pure`,
      limit: `≥ ${times(options.limit)}`,
      measured: times(ratio),
      met: ratio >= options.limit,
    });
  }
  const spawn = { native: summarize(first.samples.native), pure: summarize(first.samples.pure) };
  const inner = (side: Side, key: "loaded" | "signed") => median(first.inside[side][key]);
  rows.push(
    [
      `spawn → first signature printed, p50 (p95), ${options.spawns} spawns each`,
      `${ms(spawn.native.p50)} (${ms(spawn.native.p95)})`,
      `${ms(spawn.pure.p50)} (${ms(spawn.pure.p95)})`,
      times(spawn.native.p50 / spawn.pure.p50),
    ],
    [
      "inside that process: curve loaded → signed (ms since it began)",
      `${ms(inner("native", "loaded"))} → ${ms(inner("native", "signed"))}`,
      `${ms(inner("pure", "loaded"))} → ${ms(inner("pure", "signed"))}`,
      times(inner("native", "signed") / inner("pure", "signed")),
    ],
  );
  return {
    name: "signer",
    title: `The signer: native (libsecp256k1 in WebAssembly) against nostr-tools pure, taking turns`,
    columns: ["measure", "native (lib/key/curve.ts)", "pure (nostr-tools/pure)", "native / pure"],
    rows,
    targets,
    notes: [
      "Throughput in this one process, the two taking turns batch by batch after a warm-up batch each; signing " +
      "includes the event id's SHA-256, as every signature does. Verifying checks distinct events parsed from " +
      "JSON text, each side its own copies: nostr-tools marks an object it verified and trusts the mark, which " +
      "a plain object never carries.",
      "First signature: `deno run --quiet <the narrow flags> bench/first_sign_<side>.ts`, spawned in turn after " +
      "one warm-up spawn each, timed from spawn to the arrival of its one line; each script imports only its " +
      "own curve.",
    ],
    data: { options: { ...options, log: undefined }, signs, verifies, first },
  };
}
