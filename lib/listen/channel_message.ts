// An admitted event as the model meets it (the listen issue, points 2 and 3):
// the text, cut visibly at a bound, and attributes whose keys are identifiers
// and whose values are strings (Claude Code drops a channel event with any
// other value): what the model needs to answer it with the write tools alone.
// The same shape reaches Claude Code's channel and tiny_inbox. Pure.

import type { SignedEvent } from "../key/signer.ts";
import { JOB_CANCEL, JOB_REQUEST } from "./addressing.ts";

/** The most of an event's text the model is shown; past it, the cut is said. */
export const CONTENT_LIMIT = 8_000;

export interface ListenedEvent {
  content: string;
  meta: Record<string, string>;
}

const first = (event: SignedEvent, name: string, marker?: string) =>
  event.tags.find((tag) => tag[0] === name && tag.length > 1 && (marker === undefined || tag[3] === marker))
    ?.[1];

/** The thread an event belongs to: a kind 11 is its own; a reply names its root; else the event starts one. */
function threadOf(event: SignedEvent): string {
  if (event.kind === 11) return event.id;
  return first(event, "e", "root") ?? first(event, "E") ?? first(event, "e") ?? event.id;
}

/** The text shown: a job's subject first, then its content; cut at the bound, the cut said. */
function textOf(event: SignedEvent): string {
  const subject = event.kind === JOB_REQUEST ? first(event, "subject") : undefined;
  const text = subject === undefined ? event.content : `${subject}\n\n${event.content}`;
  const chars = [...text];
  if (chars.length <= CONTENT_LIMIT) return text;
  return `${chars.slice(0, CONTENT_LIMIT).join("")}\n[cut: ${CONTENT_LIMIT.toLocaleString("en-US")} of ${
    chars.length.toLocaleString("en-US")
  } characters shown; the whole text is event ${event.id}]`;
}

/** What the model sees of `event`; `npubOf` spells a key as an npub. */
export function listenedEvent(event: SignedEvent, npubOf: (hex: string) => string): ListenedEvent {
  const meta: Record<string, string> = {
    room: first(event, "h") ?? "",
    thread: threadOf(event),
    event_id: event.id,
    kind: String(event.kind),
    author: npubOf(event.pubkey),
    author_pubkey: event.pubkey,
    created_at: String(event.created_at),
  };
  const replyTo = first(event, "e", "reply") ?? first(event, "e");
  if (replyTo !== undefined && event.kind !== JOB_CANCEL) meta.reply_to = replyTo;
  if (event.kind === JOB_REQUEST) meta.job = event.id;
  if (event.kind === JOB_CANCEL) meta.job = first(event, "e") ?? "";
  return { content: textOf(event), meta };
}
