// diagnose: one signed NIP-86 `browsegrant` call, classified by the
// contract's table and read into one report (facade.md, `tiny_diagnose`).
// The I/O is this one call; classification and the report are pure.

import { type Asked, classify } from "./classify.ts";
import { buildReport, type Report } from "./report.ts";
import { loadNostr } from "../key/stack.ts";
import type { HttpOutcome } from "../relay/answer.ts";
import type { Signer } from "../key/signer.ts";

/** The one relay call diagnose makes. */
export interface ManagePort {
  readonly base: string;
  manage(method: string, params: unknown[]): Promise<HttpOutcome>;
}

/** The one signed call, then the report. Never throws for a relay failure. */
export async function diagnose(relay: ManagePort, signer: Signer, asked: Asked): Promise<Report> {
  const identity = await signer.identity();
  const ask: Record<string, unknown> = {};
  if (asked.rooms.length > 0) ask.rooms = asked.rooms;
  if (asked.kinds.length > 0) ask.kinds = asked.kinds;
  const outcome = await relay.manage("browsegrant", Object.keys(ask).length > 0 ? [ask] : []);
  const { nip19 } = await loadNostr();
  return buildReport({ relay: relay.base, identity, asked, npubOf: nip19.npubEncode }, classify(outcome));
}
