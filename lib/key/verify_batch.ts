// Many events' signatures checked at once (a query's answer: up to 10,000), on two threads when there
// are enough of them to pay for the second: this thread checks half, a short-lived worker holding
// nothing but libsecp256k1 (no permission at all, no key, its console silenced) the other half. Checking
// is almost all of a large query's time, and one core is not the machine's only one. Any trouble with
// the worker (it cannot start, it fails, it is slow to start) leaves every check to this thread, said
// once. This thread's share is checked in slices, so what else the process does goes on meanwhile.

import type { SignedEvent } from "./signer.ts";
import { eventVerifier, isSignedEventShape } from "./verify.ts";

/** From this many events on, a second thread checks half: below, starting it costs more than it saves. */
export const PARALLEL_FROM = 2_000;
/** Events checked between two turns of this thread's event loop. */
const SLICE = 128;
/** How long the worker may take to be ready before its half is checked here instead. */
const START_MS = 10_000;
/**
 * Events sent to the worker at a time, two in flight: it never waits, and neither side holds a copy of
 * its whole half at once.
 */
const CHUNK = 500;

/**
 * The worker's source: libsecp256k1 through nostr-wasm, the version deno.json's import map names (a test
 * holds the two together), with every console method silenced (the library's C side may print). An
 * event its fixed memory cannot hold (native_bound.ts) gets no verdict (null): it is checked here.
 */
export const HELPER_SOURCE = [
  'import { initNostrWasm } from "npm:nostr-wasm@0.1.0/gzipped";',
  "for (const name of ['log', 'info', 'debug', 'warn', 'error']) console[name] = () => {};",
  "const nw = await initNostrWasm();",
  "self.onmessage = ({ data }) => self.postMessage(data.map((event) => {",
  "  try { nw.verifyEvent(event); return true; }",
  "  catch (error) { return /\\bOut of memory\\b/.test(error?.message) ? null : false; }",
  "}));",
  "self.postMessage('ready');",
].join("\n");

let said = false;

/** Why the second thread is not used, said once on stderr. */
function sayOnce(why: string): void {
  if (said) return;
  said = true;
  console.error(`tinyagent: signatures of a large answer are checked on one thread: ${why}`);
}

/** A verdict from the worker: null where its memory could not hold the event. */
export type Verdict = boolean | null;

/** The checks of `events` by a fresh worker; undefined when it could not do them. */
export async function checkedElsewhere(events: readonly SignedEvent[]): Promise<Verdict[] | undefined> {
  let worker: Worker;
  try {
    worker = new Worker(`data:application/javascript;base64,${btoa(HELPER_SOURCE)}`, {
      type: "module",
      deno: { permissions: "none" },
    });
  } catch (error) {
    sayOnce((error as Error).message);
    return undefined;
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await new Promise<Verdict[] | undefined>((resolve) => {
      const verdicts: Verdict[] = [];
      let sent = 0;
      const send = () => {
        if (sent >= events.length) return;
        worker.postMessage(events.slice(sent, sent + CHUNK));
        sent += CHUNK;
      };
      timer = setTimeout(
        () => (sayOnce("the checking worker did not start in time"), resolve(undefined)),
        START_MS,
      );
      worker.onerror = (event) => {
        event.preventDefault();
        sayOnce(event.message);
        resolve(undefined);
      };
      worker.onmessage = ({ data }) => {
        if (data === "ready") {
          clearTimeout(timer);
          send();
          return send();
        }
        if (!Array.isArray(data)) return resolve(undefined);
        verdicts.push(...data);
        if (verdicts.length >= events.length) {
          resolve(verdicts.length === events.length ? verdicts : undefined);
        } else send();
      };
    });
  } finally {
    clearTimeout(timer);
    worker.terminate();
  }
}

/** Checks `events` here, a slice at a time. */
async function checkedHere(events: readonly SignedEvent[]): Promise<boolean[]> {
  const verify = await eventVerifier();
  const results: boolean[] = [];
  for (let start = 0; start < events.length; start += SLICE) {
    for (const event of events.slice(start, start + SLICE)) {
      const verdict = verify(event);
      results.push(typeof verdict === "boolean" ? verdict : await verdict);
    }
    if (start + SLICE < events.length) await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return results;
}

/**
 * Whether each event's shape, id and signature hold, in order; rejects only when the signing stack
 * cannot load here (key/stack.ts's PackageLoadError). The worker's verdicts are
 * taken only for events whose shape is checked here (the WASM path reads hex loosely); this thread's own
 * checks include the shape (verify.ts).
 */
export async function verifyBatch(
  events: readonly SignedEvent[],
  /** Who checks the second half (a test's own); by default a fresh worker. */
  elsewhere: (events: readonly SignedEvent[]) => Promise<Verdict[] | undefined> = checkedElsewhere,
): Promise<boolean[]> {
  if (events.length < PARALLEL_FROM) return await checkedHere(events);
  const half = Math.ceil(events.length / 2);
  const second = events.slice(half);
  const [mine, theirs] = await Promise.all([checkedHere(events.slice(0, half)), elsewhere(second)]);
  if (!theirs) return [...mine, ...await checkedHere(second)];
  const rest: boolean[] = [];
  for (const [i, ok] of theirs.entries()) {
    rest.push(
      ok === null ? (await checkedHere([second[i]]))[0] : ok === true && isSignedEventShape(second[i]),
    );
  }
  return [...mine, ...rest];
}
