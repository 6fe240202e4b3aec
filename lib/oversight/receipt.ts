// The receipt of a write: what the relay's answer to a signed event (or an
// upload) means — accepted, refused, not sent, or unknown because the answer
// was lost after the event went out — the one stderr line that says so, and,
// when the outcome is unknown, the error that keeps the agent from publishing
// the same thing twice. Pure.

import { failureText, type RelayAnswer } from "../relay/answer.ts";
import { isObject } from "../wire/json.ts";
import type { JsonObject } from "../wire/mcp.ts";
import {
  type EventFields,
  placeOf,
  placeText,
  printable,
  quoted,
  tagValue,
  uploadMeaning,
} from "./write_summary.ts";

/** How much of the content a receipt line shows. */
export const RECEIPT_CONTENT_CHARS = 60;

export type WriteOutcome =
  | { status: "accepted" }
  /** The relay answered and did not publish it; `message` is its reason. */
  | { status: "refused"; message: string }
  /** The relay cannot have read the request whole: nothing was published. */
  | { status: "not sent"; detail: string }
  /** The request went out and its answer was lost: published or not, nobody here knows. */
  | { status: "unknown"; detail: string };

/** The relay's message in a result, or its first text. */
function resultMessage(result: JsonObject): string | undefined {
  const structured = result.structuredContent;
  if (isObject(structured) && typeof structured.message === "string" && structured.message !== "") {
    return structured.message;
  }
  const first = Array.isArray(result.content) ? result.content.find((block) => isObject(block)) : undefined;
  return isObject(first) && typeof first.text === "string" ? first.text : undefined;
}

/**
 * What the relay's answer to a write means. A result is accepted unless it is an error or says
 * `accepted: false`; a relay failure is a refusal, except a transport failure, which is "not sent"
 * when the relay cannot have read the request and unknown otherwise.
 */
export function outcomeOf(answer: RelayAnswer): WriteOutcome {
  if (!answer.ok) {
    const { failure } = answer;
    if (failure.class !== "transport") return { status: "refused", message: failureText(failure) };
    return failure.unsent
      ? { status: "not sent", detail: failureText(failure) }
      : { status: "unknown", detail: failureText(failure) };
  }
  const { result } = answer;
  const structured = isObject(result.structuredContent) ? result.structuredContent : {};
  if (result.isError === true || structured.accepted === false) {
    return { status: "refused", message: resultMessage(result) ?? "the relay did not accept it" };
  }
  return { status: "accepted" };
}

/** The outcome as a receipt says it. */
export function outcomeText(outcome: WriteOutcome): string {
  switch (outcome.status) {
    case "accepted":
      return "accepted";
    case "refused":
      return `refused: ${printable(outcome.message, 200)}`;
    case "not sent":
      return `not sent: ${printable(outcome.detail, 200)}`;
    case "unknown":
      return `outcome unknown: ${printable(outcome.detail, 200)}`;
  }
}

/** One stderr line for a signed event, after the relay's answer. */
export function receiptLine(
  tool: string,
  event: EventFields & { id: string },
  outcome: WriteOutcome,
): string {
  const excerpt = quoted(event.content, RECEIPT_CONTENT_CHARS);
  return `receipt: ${tool} signed kind ${event.kind} event ${event.id}${
    placeText(placeOf(event))
  }: ${excerpt}: ${outcomeText(outcome)}`;
}

/** One stderr line for an upload (it signs nothing, and counts as a write). */
export function uploadReceiptLine(tool: string, args: JsonObject, outcome: WriteOutcome): string {
  return `receipt: ${tool}: ${uploadMeaning(args)}: ${outcomeText(outcome)}`;
}

/** The line said when a write is held back before anything is signed. */
export function heldLine(tool: string, what: string, why: string): string {
  return `held: ${tool}: ${what}: ${printable(why, 300)}`;
}

/** The read call that shows whether `event` was published, as the model would make it. */
export function howToCheck(event: EventFields): string {
  const { room, thread } = placeOf(event);
  const call = (tool: string, args: JsonObject) => `${tool} ${JSON.stringify(args)}`;
  if (room !== undefined && thread !== undefined) return call("read_thread", { id: room, event: thread });
  if (room !== undefined) return call("read_room", { id: room });
  // A repository is addressed `30617:<owner>:<repo>` (an `a` tag, or a comment's root `A`).
  const address = event.tags.find(([name, value]) =>
    (name === "a" || name === "A") && value?.startsWith("30617:")
  );
  const [, owner, repo] = (address?.[1] ?? "").split(":");
  const root = tagValue(event.tags, "E") ?? tagValue(event.tags, "e");
  switch (event.kind) {
    case 1111: {
      if (root === undefined) break;
      const tool = { "1618": "read_pull_request", "1621": "read_issue" }[tagValue(event.tags, "K") ?? ""];
      if (tool === undefined) return `the read tool for ${root}`;
      // The relay reads an issue by its repository and event; a comment names the repository only when
      // its template carried the address.
      return owner && repo
        ? call(tool, { owner, repo, event: root })
        : `${tool} with the repository's owner and repo and {"event":"${root}"}`;
    }
    case 1621:
      if (owner && repo) return call("list_issues", { owner, repo });
      break;
    case 1618:
      if (owner && repo) return call("list_pull_requests", { owner, repo });
      break;
    case 30818:
      return call("read_wiki_page", { d: tagValue(event.tags, "d") ?? "" });
  }
  const job = tagValue(event.tags, "e");
  if (event.kind >= 43001 && event.kind <= 43006 && job !== undefined) return call("read_job", { id: job });
  return "the relay's read tools";
}

/**
 * The tool error when the answer to a signed event was lost: the transport's words, then what
 * the agent must know before it tries again.
 */
export function unknownOutcomeText(
  detail: string,
  tool: string,
  event: EventFields & { id: string },
): string {
  return `${detail}. The signed event ${event.id} (kind ${event.kind}) was sent, but the relay's answer was ` +
    `lost, so whether it was published is unknown; tinyagent did not send it again. Before trying again, ` +
    `check with ${
      howToCheck(event)
    } whether it is there: calling ${tool} again would publish a second event.`;
}

/** The tool error when a signed event never reached the relay. */
export function notSentText(detail: string, tool: string, event: { id: string }): string {
  return `${detail}. The signed event ${event.id} did not reach the relay, so nothing was published; ` +
    `calling ${tool} again is safe.`;
}

/**
 * Signing failed (the signer's own error, with anything shaped like a key already taken out): nothing
 * was signed nor sent, and the budget's place is given back.
 */
export function unsignedText(tool: string, why: string): string {
  return `tinyagent could not sign the event ${tool} asked for (${why}), so nothing was published; ` +
    `calling ${tool} again will try once more.`;
}
