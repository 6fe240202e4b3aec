// Asking the host's person (MCP elicitation, form mode): whether the host
// can be asked, the request, and what its answer means. The form is empty:
// the question is the message, and the host's accept, decline and cancel are
// the answer (Claude Code shows Accept and Decline; Hermes routes it to its
// approval channels and answers accept with no content).

import { isObject } from "../wire/json.ts";
import type { JsonObject } from "../wire/mcp.ts";
import type { AskPerson, ConfirmAnswer } from "../oversight/confirmation.ts";
import type { HostChannel } from "./channel.ts";

export const ELICIT_METHOD = "elicitation/create";

/**
 * Whether a host that declared `capabilities` in `initialize` can be asked in form mode:
 * `elicitation: {}` (form, as 2025-06-18 has it) or `elicitation: {form: {…}}`; a host that
 * declared URL mode alone cannot show a form.
 */
export function canElicitForm(capabilities: unknown): boolean {
  if (!isObject(capabilities) || !isObject(capabilities.elicitation)) return false;
  const { form, url } = capabilities.elicitation;
  return form !== undefined ? isObject(form) : url === undefined;
}

/** The request's params: the question, and a form with nothing to fill in. */
export function elicitationParams(message: string): JsonObject {
  return { message, requestedSchema: { type: "object", properties: {} } };
}

/** What an elicitation result says: accept, decline or cancel; undefined when it is not one. */
export function elicitAction(result: unknown): "accept" | "decline" | "cancel" | undefined {
  if (!isObject(result)) return undefined;
  const { action } = result;
  return action === "accept" || action === "decline" || action === "cancel" ? action : undefined;
}

/** Why a host that declared no elicitation cannot be asked, and what to do. */
export const NO_ELICITATION =
  "--confirm-writes is set, and this host cannot ask its person: its initialize declared no elicitation " +
  "capability (form mode); use a host that supports MCP elicitation (Claude Code 2.1.76 or later, Hermes), " +
  "or start tinyagent without --confirm-writes";

/** Asks through the host, each question bounded by `timeoutMs`. */
export function askThroughHost(channel: HostChannel, timeoutMs: number): AskPerson {
  return async (question: string, signal?: AbortSignal): Promise<ConfirmAnswer> => {
    if (!canElicitForm(channel.capabilities)) return { action: "unable", why: NO_ELICITATION };
    const reply = await channel.request(ELICIT_METHOD, elicitationParams(question), timeoutMs, signal);
    if (reply.ok) {
      const action = elicitAction(reply.result);
      return action
        ? { action }
        : { action: "unable", why: "the host's answer to the question was not an elicitation result" };
    }
    if ("timedOut" in reply) return { action: "timeout", seconds: timeoutMs / 1000 };
    if ("busy" in reply) {
      return {
        action: "unable",
        why: `${reply.busy} writes already wait for the person's answer; try again once they are answered`,
      };
    }
    if ("gone" in reply) return { action: "unable", why: `the host cannot answer any more (${reply.gone})` };
    if ("cancelled" in reply) {
      return { action: "unable", why: "the call that asked was cancelled before the person answered" };
    }
    return {
      action: "unable",
      why: `the host could not ask its person (error ${reply.error.code}: ${
        reply.error.message.slice(0, 200)
      })`,
    };
  };
}
