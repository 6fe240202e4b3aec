// Asking the person before a write (`--confirm-writes`): the question they
// read, and what each answer means for the call. Who asks is a port: the host
// (an MCP elicitation, host/elicitation.ts) under `mcp`, the terminal under
// `call` (terminal_prompt.ts). Pure.

import type { JsonObject } from "../wire/mcp.ts";
import {
  type EventFields,
  meaningOf,
  printable,
  printableBlock,
  tagLines,
  uploadMeaning,
} from "./write_summary.ts";

/** The most content a question shows; past it, the cut is said. */
export const QUESTION_CONTENT_CHARS = 2_000;

/** One write waiting for the person. */
export interface WriteRequest {
  tool: string;
  /** The template about to be signed, as the relay returned it; undefined for an upload. */
  event?: EventFields;
  /** The call's arguments. */
  args: JsonObject;
}

/** The signed event that approved a write (an approver's answer to a card in the room), and its author. */
export interface Approval {
  event: string;
  author: string;
}

/** What the person (or whoever stands for them) answered. */
export type ConfirmAnswer =
  | { action: "accept"; approval?: Approval }
  | { action: "decline" }
  | { action: "cancel" }
  /** No answer within the confirmation timeout. */
  | { action: "timeout"; seconds: number }
  /** The person could not be asked; `why` says so, and what to do. */
  | { action: "unable"; why: string };

/** Asks the person `question`; never rejects. `signal`: the call that asks was cancelled, withdraw it. */
export type AskPerson = (question: string, signal?: AbortSignal) => Promise<ConfirmAnswer>;

/** Who asks: the host (mcp), the terminal (call), or approvers answering a card in the room. */
export type Asker = "host" | "terminal" | "room";

/** Where the answer was given, as refusals say it: `at the host`, `in the room`. */
export function askedWhere(where: Asker): string {
  return where === "room" ? "in the room" : `at the ${where}`;
}

/** What the person is asked about one write: what it means, its content and tags, where it goes. */
export function confirmationQuestion(
  request: WriteRequest,
  context: {
    relay: string;
    signer?: string;
    budget?: { spent: number; limit: number };
    /** A program the agent wrote makes this write (tiny_execute), with the intent it gave. */
    origin?: { via: string; intent?: string };
  },
): string {
  const lines: string[] = [];
  const as = context.signer ? ` as ${context.signer}` : "";
  const { event } = request;
  if (event) {
    lines.push(`Sign and publish this event${as} on ${printable(context.relay, 200)}?`, "");
    lines.push(`${request.tool}: ${meaningOf(request.tool, event)} (kind ${event.kind})`, "");
    const length = [...event.content].length;
    lines.push(
      length === 0 ? "Content: none" : `Content (${length.toLocaleString("en-US")} characters):`,
    );
    if (length > 0) lines.push(printableBlock(event.content, QUESTION_CONTENT_CHARS));
    if (event.tags.length > 0) lines.push("", "Tags:", ...tagLines(event.tags));
  } else {
    lines.push(`Upload this file${as} to ${printable(context.relay, 200)}?`, "");
    lines.push(
      `${request.tool}: ${uploadMeaning(request.args)}; it publishes no event and counts as one write`,
    );
  }
  if (context.origin) lines.push("", ...originLines(context.origin));
  if (context.budget) {
    lines.push("", `Writes so far: ${context.budget.spent} of ${context.budget.limit} (--max-writes).`);
  }
  lines.push(
    "",
    event
      ? "Accept signs it and sends it to the relay; decline or cancel signs nothing."
      : "Accept sends it to the relay; decline or cancel sends nothing.",
  );
  return lines.join("\n");
}

/** Who asks for a write made by a program: the tool that runs it, and what the program says it is for. */
function originLines(origin: { via: string; intent?: string }): string[] {
  const intent = origin.intent?.trim();
  return [
    `A program the agent wrote asks for this write (${printable(origin.via, 40)}).`,
    intent ? `Its stated intent: ${printable(intent, 500)}` : "It stated no intent.",
  ];
}

/**
 * The tool error for a write the person did not approve, whoever asked (`host`, `terminal`, `room`);
 * an upload, which signs nothing, says nothing was uploaded. Undefined for an approval.
 */
export function heldText(
  answer: ConfirmAnswer,
  where: Asker,
  upload = false,
): string | undefined {
  const nothing = upload ? "nothing was uploaded" : "nothing was signed";
  switch (answer.action) {
    case "accept":
      return undefined;
    case "decline":
    case "cancel":
      return `permission: declined ${askedWhere(where)}: ${nothing}`;
    case "timeout":
      return `permission: declined ${
        askedWhere(where)
      }: no answer within ${answer.seconds} s (--confirm-timeout); ${nothing}`;
    case "unable":
      return `permission: ${answer.why}; ${nothing}`;
  }
}

/** Why a write was held, in a word or two, for receipts and the audit log. */
export function heldReason(answer: Exclude<ConfirmAnswer, { action: "accept" }>): string {
  switch (answer.action) {
    case "decline":
      return "declined";
    case "cancel":
      return "cancelled";
    case "timeout":
      return `no answer within ${answer.seconds} s`;
    case "unable":
      return `could not ask: ${answer.why}`;
  }
}
