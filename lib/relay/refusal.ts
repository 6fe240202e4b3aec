// What a refusal from the relay means and what the agent can do about it, read from the relay's own
// words inside a tool result (tinyrelay's read gate, its write gates, its uploads): not a member, a
// grant that does not cover a room or a kind, a grant paused, revoked or expired, the grant's events
// per minute used up, a members-only room, a room that does not exist. Pure.

import { isObject } from "../wire/json.ts";
import type { JsonObject } from "../wire/mcp.ts";

/** Why the relay refused, as tinyagent tells it apart. */
export type RefusalCause =
  | "not-a-member"
  | "grant-rate"
  | "grant-room"
  | "grant-kind"
  | "grant-repository"
  | "grant-paused"
  | "grant-revoked"
  | "grant-expired"
  | "room-members"
  | "unknown-room";

export interface Refusal {
  cause: RefusalCause;
  /** What the agent can do, in a sentence it can act on. */
  advice: string;
}

/** A refusal the session saw: the tool refused, the relay's words, their cause and the advice. */
export interface SeenRefusal extends Refusal {
  tool: string;
  said: string;
}

const ASK = "ask the relay's operator";

/** Each cause: the relay's words, and the advice they lead to. */
const RULES: [RegExp, RefusalCause, (m: RegExpExecArray) => string][] = [
  [
    /auth-required: this relay is members-only|restricted: file upload is not allowed|blocked: this event is not allowed by the relay write policy|restricted: long tasks are accepted from members and agents|restricted: rooms are for members of this relay/,
    "not-a-member",
    () =>
      `this key is not a member of the relay: ${ASK} for membership or an agent grant (tiny_diagnose shows the key to give them)`,
  ],
  [
    /restricted: agent grant does not allow more than (\d+) events per minute/,
    "grant-rate",
    (m) =>
      `the agent grant allows ${
        m[1]
      } events in any 60 seconds and this key has published that many in the last minute; nothing was published: wait a minute before publishing again`,
  ],
  [
    /restricted: agent grant does not allow room (\S+)/,
    "grant-room",
    (m) =>
      `the agent grant does not cover room ${
        m[1]
      }: request_grant asks the operator for it (changes: {"rooms": ["${m[1]}"]})`,
  ],
  [
    /restricted: agent grant does not allow kind (\d+)/,
    "grant-kind",
    (m) =>
      `the agent grant does not cover kind ${
        m[1]
      }: request_grant asks the operator for it (changes: {"kinds": [${m[1]}]})`,
  ],
  [
    /restricted: agent grant does not allow (?:status changes in )?repository ([0-9a-f]{64}):(\S+)/,
    "grant-repository",
    (m) =>
      `the agent grant does not cover repository ${m[2]} of ${
        m[1]
      }: request_grant asks the operator for it (changes: {"repos": [{"owner": "${m[1]}", "identifier": "${
        m[2]
      }", "level": "propose"}]}; "maintain" to change statuses)`,
  ],
  [
    /restricted: agent grant is paused/,
    "grant-paused",
    () => `the operator has paused this agent's grant: nothing can be published until they resume it; ${ASK}`,
  ],
  [
    /restricted: agent grant is revoked/,
    "grant-revoked",
    () => `this agent's grant was revoked: ${ASK} for a new one`,
  ],
  [
    /restricted: agent grant has expired/,
    "grant-expired",
    () => `this agent's grant has expired: ${ASK} to renew it`,
  ],
  [
    /restricted: (?:not a member of room (\S+)|this room is members-only)/,
    "room-members",
    (m) =>
      `${
        m[1] ? `room ${m[1]}` : "that room"
      } is for its members and this key is not one: ask one of the room's admins`,
  ],
  [
    /invalid: unknown room (\S+)|not found: room\b/,
    "unknown-room",
    (m) =>
      `${
        m[1] ? `room ${m[1]}` : "that room"
      } does not exist on this relay: list_rooms shows the rooms there are`,
  ],
];

/** The cause of a refusal in the relay's words, and the advice; undefined for any other text. */
export function refusalOf(text: string): Refusal | undefined {
  for (const [pattern, cause, advice] of RULES) {
    const m = pattern.exec(text);
    if (m) return { cause, advice: advice(m) };
  }
  return undefined;
}

/** The words a refusal is told in: its text blocks, then its structured message. */
function wordsOf(result: JsonObject): string[] {
  const blocks = Array.isArray(result.content) ? result.content : [];
  const texts = blocks.flatMap((block) =>
    isObject(block) && typeof block.text === "string" ? [block.text] : []
  );
  const structured = result.structuredContent;
  if (isObject(structured) && typeof structured.message === "string") texts.push(structured.message);
  return texts;
}

/** The refusal a result is, in words tinyagent knows, with the words that said it; undefined otherwise. */
export function refusalIn(result: JsonObject): (Refusal & { said: string }) | undefined {
  if (result.isError !== true) return undefined;
  for (const said of wordsOf(result)) {
    const refusal = refusalOf(said);
    if (refusal) return { ...refusal, said };
  }
  return undefined;
}

/**
 * A relay's refusal with what to do about it: one more text block, `tinyagent: <advice>`, when the
 * relay's words name a cause tinyagent knows; any other result as it is.
 */
export function withAdvice(result: JsonObject): JsonObject {
  const refusal = refusalIn(result);
  if (!refusal) return result;
  const content = Array.isArray(result.content) ? result.content : [];
  return { ...result, content: [...content, { type: "text", text: `tinyagent: ${refusal.advice}` }] };
}
