// Writes a re-run never repeats: the keys a session's programs give their writes (`relay.<write>(args,
// { idempotencyKey })`), each with the write it was used for. A key is looked up before its write enters
// the facade's path, and only ever answers for a write already sent, so it is never a second gate: a key
// used for a sent write (accepted, refused by the relay, or its answer lost) answers a re-run with that
// write's event and what its call gave, signing and asking nothing; the same key with other arguments
// is refused, naming the earlier write; a key whose write was held (declined, timed out, over budget, or
// never left) is free again, as nothing was sent. At most MAX_KEYS are kept, each for KEY_TTL_MS; a key
// dropped (the oldest, or an expired one) is said in the answer of the program that dropped it. Kept for
// the session, in memory only. Pure but for WebCrypto's digest.

import { canonicalJson, sha256Hex } from "./digest.ts";
import type { CallReport } from "./report.ts";

/** Keys kept at most; past it, the oldest is dropped. */
export const MAX_KEYS = 1000;
/** How long a key answers for its write. */
export const KEY_TTL_MS = 24 * 60 * 60 * 1000;
/** The longest answer kept to give a re-run, in characters of JSON; a longer one gives the event alone. */
export const ANSWER_MAX_CHARS = 8 * 1024;

/** A write that was sent, as its key keeps it. */
export interface SentWrite {
  tool: string;
  /** SHA-256 of its arguments' canonical JSON. */
  digest: string;
  /** When it was sent (the clock's ms). */
  at: number;
  outcome: "accepted" | "refused" | "unknown";
  event?: string;
  why?: string;
  /** What its call gave the program: the answer's JSON text, or the error it threw. */
  answer?: string;
  error?: string;
}

/** A key given up, and why: past its time, or the oldest when MAX_KEYS were kept. */
export interface Dropped {
  key: string;
  why: "expired" | "full";
  write: SentWrite;
}

/** A claimed key's end: its write sent (kept), or not (the key free again). Once; later calls do nothing. */
export interface Ticket {
  sent(write: Omit<SentWrite, "tool" | "digest" | "at">): void;
  release(): void;
}

export type Claim =
  | { kind: "new"; ticket: Ticket; dropped: Dropped[] }
  | { kind: "replay"; write: SentWrite }
  | { kind: "conflict"; write: SentWrite }
  | { kind: "busy"; tool: string };

/** A key's write on its way: nothing is known of it yet. */
interface Pending {
  pending: string;
}

export class IdempotencyKeys {
  #entries = new Map<string, SentWrite | Pending>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Keys kept, sent and pending. */
  get size(): number {
    return this.#entries.size;
  }

  /** What `key` means for a write of `tool` with arguments of `digest`: new (claimed), a replay, or refused. */
  claim(key: string, tool: string, digest: string): Claim {
    const dropped: Dropped[] = [];
    const entry = this.#entries.get(key);
    if (entry && "pending" in entry) return { kind: "busy", tool: entry.pending };
    if (entry && this.now() - entry.at > KEY_TTL_MS) {
      this.#entries.delete(key);
      dropped.push({ key, why: "expired", write: entry });
    } else if (entry) {
      return entry.tool === tool && entry.digest === digest
        ? { kind: "replay", write: entry }
        : { kind: "conflict", write: entry };
    }
    for (const [oldest, kept] of this.#entries) {
      if (this.#entries.size < MAX_KEYS) break;
      if ("pending" in kept) continue;
      this.#entries.delete(oldest);
      dropped.push({ key: oldest, why: this.now() - kept.at > KEY_TTL_MS ? "expired" : "full", write: kept });
    }
    const mine: Pending = { pending: tool };
    this.#entries.set(key, mine);
    const ours = () => this.#entries.get(key) === mine;
    return {
      kind: "new",
      dropped,
      ticket: {
        sent: (write) => {
          if (!ours()) return;
          // Kept from the time it was sent, last in line to be dropped.
          this.#entries.delete(key);
          this.#entries.set(key, { ...write, tool, digest, at: this.now() });
        },
        release: () => void (ours() && this.#entries.delete(key)),
      },
    };
  }
}

/** SHA-256 of the arguments' canonical JSON (key order aside); undefined when JSON cannot hold them. */
export async function argsDigest(args: unknown): Promise<string | undefined> {
  const text = canonicalJson(args);
  return text === undefined ? undefined : await sha256Hex(text);
}

/** A key as quoted in the answer: whole when short, cut when long. */
export function quotedKey(key: string): string {
  return JSON.stringify(key.length > 60 ? `${key.slice(0, 60)}…` : key);
}

/** The earlier write a key names, in words: its tool, its event, its outcome. */
export function earlierWrite(write: SentWrite): string {
  const outcome = write.outcome === "accepted"
    ? "accepted by the relay"
    : write.outcome === "refused"
    ? `refused by the relay${write.why ? `: ${write.why}` : ""}`
    : "its answer was lost: it may be published";
  return `${write.tool}${write.event ? ` event ${write.event}` : ""} (${outcome})`;
}

/** Why a claim refuses the write: the key names another write, or one still on its way. Nothing was sent. */
export function refusalText(key: string, claim: Extract<Claim, { kind: "conflict" | "busy" }>): string {
  const said = `idempotency key ${quotedKey(key)}`;
  if (claim.kind === "busy") {
    return `${said} is in use by a ${claim.tool} still on its way; nothing was sent (await that write first)`;
  }
  return `${said} was used for ${earlierWrite(claim.write)} with other arguments; nothing was sent: give ` +
    "another write another key";
}

/** What a replayed write's call throws when the write's own call threw (refused, or its answer lost). */
export function replayError(key: string, write: SentWrite): string {
  return `${write.error ?? earlierWrite(write)} [answered by idempotency key ${quotedKey(key)}: the write ` +
    "was sent earlier in this session and not sent again]";
}

/** What a dropped key means, for the answer. */
export function droppedText(dropped: Dropped): string {
  const write = earlierWrite(dropped.write);
  return dropped.why === "expired"
    ? `idempotency key ${quotedKey(dropped.key)} had expired (kept ${KEY_TTL_MS / 3_600_000} hours; it ` +
      `was used for ${write}): dropped, so this write was sent anew`
    : `idempotency key ${quotedKey(dropped.key)} (${write}) was dropped: at most ${MAX_KEYS} are kept, ` +
      "so running its program again would send that write again";
}

/** A write's fate as its call ended, kept under its key when it was sent; the key freed when not. */
export function settle(ticket: Ticket, record: CallReport, value: unknown, error?: unknown): void {
  const write = record.write;
  if (
    !write || (write.outcome !== "accepted" && write.outcome !== "refused" && write.outcome !== "unknown")
  ) {
    return ticket.release();
  }
  const kept: Omit<SentWrite, "tool" | "digest" | "at"> = {
    outcome: write.outcome,
    ...(write.event ? { event: write.event } : {}),
    ...(write.why ? { why: write.why } : {}),
  };
  if (error !== undefined) kept.error = error instanceof Error ? error.message : String(error);
  else {
    const text = JSON.stringify(value);
    // A write's answer is a receipt, small; one that is not is kept as its event alone.
    kept.answer = text !== undefined && text.length <= ANSWER_MAX_CHARS
      ? text
      : JSON.stringify({ event_id: write.event ?? null });
  }
  ticket.sent(kept);
}

/** The call refused inside the program, said in its report; nothing was sent. */
function refused(record: CallReport, message: string): never {
  Object.assign(record, { state: "error", error: message });
  throw new Error(message);
}

/**
 * One write under `key`: answered from the write the key was used for (as that call ended: its answer,
 * or its error), refused, or made by `make` and then kept. `record`, the call as the answer reports
 * it, says which.
 */
export async function keyedCall(
  keys: IdempotencyKeys,
  key: string,
  record: CallReport,
  args: unknown,
  make: () => Promise<unknown>,
): Promise<unknown> {
  record.key = key;
  const digest = await argsDigest(args);
  if (digest === undefined) refused(record, `relay.${record.tool}: its arguments cannot be kept under a key`);
  const claim = keys.claim(key, record.tool, digest);
  if (claim.kind === "busy" || claim.kind === "conflict") refused(record, refusalText(key, claim));
  if (claim.kind === "replay") {
    const { outcome, event, why, answer, error } = claim.write;
    record.replayed = true;
    record.write = { outcome, ...(event ? { event } : {}), ...(why ? { why } : {}) };
    if (error !== undefined) refused(record, replayError(key, claim.write));
    record.state = "ok";
    return JSON.parse(answer ?? "null");
  }
  if (claim.dropped.length > 0) record.keyNote = claim.dropped.map(droppedText).join("; ");
  let value: unknown;
  try {
    value = await make();
  } catch (error) {
    settle(claim.ticket, record, undefined, error);
    throw error;
  }
  settle(claim.ticket, record, value);
  return value;
}
