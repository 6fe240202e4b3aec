// Browsegrant answers and the reports built from them, for diagnose's unit tests: a relay's HTTP
// outcome as the relay client hands it over, a grant result to vary, and the report `diagnose`
// builds for one answer.

import * as nip19 from "nostr-tools/nip19";
import { type Asked, classify } from "../../lib/diagnose/classify.ts";
import { buildReport, type Report } from "../../lib/diagnose/report.ts";
import type { HttpOutcome } from "../../lib/relay/answer.ts";

export const RELAY = "https://relay.example.test/r/acme";
export const PUBKEY = "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798";
export const KEY = { pubkey: PUBKEY, npub: nip19.npubEncode(PUBKEY) };
export const OPERATOR = "c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5";
export const NOTHING: Asked = { rooms: [], kinds: [] };

export function http(status: number, body: unknown, contentType = "application/json"): HttpOutcome {
  return {
    ok: true,
    status,
    contentType,
    bodyText: typeof body === "string" ? body : JSON.stringify(body),
  };
}

export const NO_ANSWER: HttpOutcome = {
  ok: false,
  failure: { class: "transport", detail: "connection refused (127.0.0.1:9)" },
};

export function grantResult(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    member: true,
    role: "agent",
    grant: {
      pubkey: PUBKEY,
      owner: OPERATOR,
      event_id: "ee".repeat(32),
      name: "helper",
      expires: 1_900_000_000,
      paused: false,
      revoked: 0,
      scope: { kinds: [9, 11], rooms: ["general"], repos: [], rate: 60 },
      lastEvent: 0,
    },
    state: "active",
    enforced: true,
    expires: 1_900_000_000,
    ...overrides,
  };
}

/** The report for one relay answer, the way `diagnose` builds it. */
export function reportFor(outcome: HttpOutcome, asked: Asked = NOTHING): Report {
  return buildReport({ relay: RELAY, identity: KEY, asked, npubOf: nip19.npubEncode }, classify(outcome));
}
