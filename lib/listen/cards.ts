// The approval cards posted in the home room, in the Hermes plugin's format
// (rpc-facts.md 7.7, 7.8): the card for a Claude Code permission request or a
// `--confirm-writes` question, what makes a kind 1111 a valid answer to one,
// what a card's end means for the write that waited, and the reply that says
// a card expired. Pure. Everything a card shows comes from the model or the
// host, so it is cut and made printable first.

import type { EventTemplate, SignedEvent } from "../key/signer.ts";
import type { ConfirmAnswer } from "../oversight/confirmation.ts";
import { printable, printableBlock, tagValue } from "../oversight/write_summary.ts";
import { isObject } from "../wire/json.ts";

export const CARD_KIND = 9;
export const ANSWER_KIND = 1111;
/** The card's choices, as `option` tags: id, then label. */
export const CARD_OPTIONS = [["allow", "Allow"], ["deny", "Deny"]] as const;
export type Choice = (typeof CARD_OPTIONS)[number][0];

/** The bounds of what a card shows, in characters (code points); past one, the cut is said. */
export const SUBJECT_CHARS = 100;
export const TOOL_CHARS = 200;
export const DESCRIPTION_CHARS = 1_000;
export const PREVIEW_CHARS = 3_000;
export const QUESTION_CHARS = 8_000;
/** How far ahead of this clock an answer may be dated. */
export const AHEAD_SECONDS = 60;

/** Claude Code's `notifications/claude/channel/permission_request`, read (channels-facts.md 5b). */
export interface PermissionRequest {
  /** Lowercased, as the verdict must carry it. */
  requestId: string;
  toolName: string;
  description: string;
  inputPreview: string;
}

/** What a card asks: a permission request, or a write's confirmation question (confirmation.ts). */
export type Asked = { permission: PermissionRequest } | { question: string };

/** Where a card goes and for how long (unix seconds). */
export interface CardPlace {
  room: string;
  approvers: readonly string[];
  createdAt: number;
  expiration: number;
  /**
   * The card's number in the session: two cards asking the same in one second would otherwise be
   * the same event, and an answer to the first would answer the second.
   */
  serial: number;
}

/** Claude Code's ids are five letters; anything but a few letters is not one (and would go back to it). */
const REQUEST_ID = /^[a-z]{1,32}$/;

/** The request in `params`, or why it is not one. */
export function permissionRequestOf(params: unknown): PermissionRequest | { invalid: string } {
  if (!isObject(params)) return { invalid: "its params are not an object" };
  for (const field of ["request_id", "tool_name", "description", "input_preview"]) {
    if (typeof params[field] !== "string") return { invalid: `its ${field} is not a string` };
  }
  const requestId = (params.request_id as string).toLowerCase();
  if (!REQUEST_ID.test(requestId)) return { invalid: "its request_id is not a few letters" };
  return {
    requestId,
    toolName: params.tool_name as string,
    description: params.description as string,
    inputPreview: params.input_preview as string,
  };
}

/** `text` on one line, printable, at most `max` characters with the cut shown by an ellipsis. */
function oneLine(text: string, max: number): string {
  const shown = [...printable(text.replace(/\s+/g, " ").trim(), max * 2)];
  return shown.length <= max ? shown.join("") : `${shown.slice(0, max - 1).join("")}…`;
}

/** Untrusted text as a quoted block: printable, cut at `max` with the cut said, every line marked. */
function quotedBlock(text: string, max: number): string {
  if (text === "") return "> (none)";
  return printableBlock(text, max).split("\n").map((line) => `> ${line}`).join("\n");
}

const characters = (text: string) => [...text].length.toLocaleString("en-US");

/** The card's `subject`: the tool and its description, or the question's opening. */
export function cardSubject(asked: Asked): string {
  if ("question" in asked) return oneLine(asked.question, SUBJECT_CHARS);
  const { toolName, description } = asked.permission;
  return oneLine(`Permission: ${oneLine(toolName, TOOL_CHARS)}: ${description}`, SUBJECT_CHARS);
}

/** The card's text: what is asked, each untrusted part quoted and bounded, and how to answer. */
export function cardContent(asked: Asked, expiration: number, serial: number): string {
  const expires = `Card ${serial}; expires at ${new Date(expiration * 1000).toISOString()}`;
  if ("question" in asked) {
    return [
      "tinyagent asks before a write (--confirm-writes):",
      "",
      quotedBlock(asked.question, QUESTION_CHARS),
      "",
      "Answer in this card's thread with allow (sign and publish it) or deny (nothing is signed).",
      `${expires}; unanswered, nothing is signed.`,
    ].join("\n");
  }
  const request = asked.permission;
  return [
    `Claude Code asks permission to use a tool (request ${request.requestId}).`,
    "",
    `Tool: ${oneLine(request.toolName, TOOL_CHARS)}`,
    "",
    `Description (${characters(request.description)} characters):`,
    quotedBlock(request.description, DESCRIPTION_CHARS),
    "",
    `Input preview (${characters(request.inputPreview)} characters):`,
    quotedBlock(request.inputPreview, PREVIEW_CHARS),
    "",
    "Answer in this card's thread with allow (it runs, this once) or deny.",
    `${expires}; unanswered, nothing is decided from this room.`,
  ].join("\n");
}

/** The card as it is signed: kind 9 in the room, the tags in the plugin's order. */
export function cardTemplate(asked: Asked, place: CardPlace): EventTemplate {
  return {
    kind: CARD_KIND,
    created_at: place.createdAt,
    tags: [
      ["h", place.room],
      ["tinyagent", "1"],
      ["request", "question"],
      ["interaction", "approval"],
      ...place.approvers.map((approver) => ["p", approver]),
      ["selection", "single"],
      ["expiration", String(place.expiration)],
      ["subject", cardSubject(asked)],
      ...CARD_OPTIONS.map(([id, label]) => ["option", id, label]),
    ],
    content: cardContent(asked, place.expiration, place.serial),
  };
}

/** Why an event is not an answer to a card; each is one rule of rpc-facts 7.8. */
export type AnswerRefusal =
  | "not a comment (kind 1111)"
  | "not signed by an approver"
  | "not signed by a key the card asks"
  | "created_at is not an integer"
  | "dated before the card"
  | `dated over ${typeof AHEAD_SECONDS} s ahead`
  | "after the card expired"
  | `its ${AnswerTag} tag does not name ${string}`
  | "names no option of the card";

type AnswerTag = "h" | "e" | "E" | "k" | "K" | "p" | "P";

/** The card's expiration, unix seconds; a card without a readable one is taken as expired. */
export function expirationOf(card: Pick<SignedEvent, "tags">): number {
  const value = tagValue(card.tags, "expiration");
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : 0;
}

/** The tag each answer must carry (every tag of that name, and at least one), and what it names. */
function expectedTags(card: SignedEvent, agent: string): [AnswerTag, string, string][] {
  const kind = String(card.kind);
  return [
    ["h", tagValue(card.tags, "h") ?? "", "the card's room"],
    ["e", card.id, "the card"],
    ["E", card.id, "the card"],
    ["k", kind, "the card's kind"],
    ["K", kind, "the card's kind"],
    ["p", agent, "the agent"],
    ["P", agent, "the agent"],
  ];
}

/**
 * The option `answer` chooses on `card`, or the first rule it breaks. `now` is unix seconds;
 * `approvers` are the keys allowed now; `agent` is the card's author.
 */
export function answerVerdict(
  card: SignedEvent,
  answer: SignedEvent,
  context: { approvers: readonly string[]; agent: string; now: number },
): { option: string } | { refused: AnswerRefusal } {
  const refused = (why: AnswerRefusal) => ({ refused: why });
  if (answer.kind !== ANSWER_KIND) return refused("not a comment (kind 1111)");
  if (!context.approvers.includes(answer.pubkey)) return refused("not signed by an approver");
  if (!card.tags.some((tag) => tag[0] === "p" && tag[1] === answer.pubkey)) {
    return refused("not signed by a key the card asks");
  }
  if (!Number.isInteger(answer.created_at)) return refused("created_at is not an integer");
  if (answer.created_at < card.created_at) return refused("dated before the card");
  if (answer.created_at > context.now + AHEAD_SECONDS) return refused(`dated over ${AHEAD_SECONDS} s ahead`);
  if (context.now >= expirationOf(card)) return refused("after the card expired");
  for (const [name, value, what] of expectedTags(card, context.agent)) {
    const values = answer.tags.filter((tag) => tag[0] === name).map((tag) => tag[1]);
    if (values.length === 0 || values.some((given) => given !== value)) {
      return refused(`its ${name} tag does not name ${what}`);
    }
  }
  const chosen = answer.content.trim();
  const options = card.tags.filter((tag) => tag[0] === "option" && tag.length > 1).map((tag) => tag[1]);
  return options.includes(chosen) ? { option: chosen } : refused("names no option of the card");
}

/** The agent's reply in an expired card's thread (NIP-22 on the card): nothing was done. */
export function expiryReply(card: SignedEvent, createdAt: number): EventTemplate {
  const kind = String(card.kind);
  const expired = new Date(expirationOf(card) * 1000).toISOString();
  return {
    kind: ANSWER_KIND,
    created_at: createdAt,
    tags: [
      ["h", tagValue(card.tags, "h") ?? ""],
      ["E", card.id, "", card.pubkey],
      ["K", kind],
      ["P", card.pubkey],
      ["e", card.id, "", card.pubkey],
      ["k", kind],
      ["p", card.pubkey],
    ],
    content: `This approval request expired at ${expired} with no answer from an approver: nothing was ` +
      `done, and answers from now on change nothing.`,
  };
}

/** The cards an answer names, its root (`E`) first: where it is looked up. */
export function namedCards(answer: Pick<SignedEvent, "tags">): string[] {
  return ["E", "e"].flatMap((name) => answer.tags.filter((tag) => tag[0] === name).map((tag) => tag[1]));
}

/** How a card ended: answered, expired, not answered before the session ended; or why there is none. */
export type CardOutcome =
  | { choice: Choice; answer: SignedEvent }
  | { expired: true }
  | { ended: true }
  | { unposted: string };

/** What a card's end means for the write that waited on it (`--confirm-via relay`). */
export function confirmAnswerOf(outcome: CardOutcome, lifetimeMs: number): ConfirmAnswer {
  if ("choice" in outcome) {
    const { id: event, pubkey: author } = outcome.answer;
    return outcome.choice === "allow"
      ? { action: "accept", approval: { event, author } }
      : { action: "decline" };
  }
  if ("expired" in outcome) return { action: "timeout", seconds: lifetimeMs / 1000 };
  if ("ended" in outcome) return { action: "unable", why: "the session ended before an approver answered" };
  return { action: "unable", why: outcome.unposted };
}

/** How a permission request's card ended, for the log line after its name; nothing when the session ended. */
export function permissionOutcomeText(outcome: CardOutcome): string | undefined {
  if ("choice" in outcome) {
    return `: ${outcome.choice}, answered by ${outcome.answer.pubkey} (event ${outcome.answer.id})`;
  }
  if ("expired" in outcome) {
    return ": its card expired unanswered; Claude Code was told nothing (its dialog stays open)";
  }
  if ("unposted" in outcome) return ` got no card: ${outcome.unposted}; it can be answered at the terminal`;
  return undefined;
}

/**
 * Why no card went up, from the publish's error: held by the budget (its words, without the
 * write's own framing), or signed and not taken by the relay (its words, bounded).
 */
export function unpostedWhy(room: string, failure: { held: boolean; error: string }): string {
  if (failure.held) {
    const why = failure.error.replace(/^permission: /, "").replace(/; nothing was signed$/, "");
    return `no approval card could be posted to room "${room}" (a card counts as a write): ${why}`;
  }
  return `the approval card (kind ${CARD_KIND} in room "${room}"; the agent's grant must allow it) was not ` +
    `posted: ${printable(failure.error, 500)}`;
}
