// completion/complete for a resource template's variable: the template found among those offered
// (by its template string, as VS Code and the Inspector send it), the variable's values listed by
// the tool completion.ts names, with the values already chosen (`context.arguments`: the issues of
// the chosen repository), a few pages at most, kept briefly (call_cache.ts) so typing does not
// hammer the relay; then ranked for what was typed: at most 100 values, prefix then fuzzy order,
// `hasMore` when there are more. A value that cannot be listed yet (its repository not chosen)
// completes to nothing; a request that names no template here, or a variable it does not have, is
// refused, saying what there is.

import { type CallError, INVALID_PARAMS } from "../wire/mcp.ts";
import { isObject } from "../wire/json.ts";
import type { CallCache } from "./call_cache.ts";
import {
  type Completion,
  completionCall,
  type CompletionCandidate,
  completionCandidates,
  MAX_LOOKED_AT,
  rankCompletions,
} from "./completion.ts";
import { type Kind, MAX_URI } from "./kinds.ts";
import { MAX_TOOL_CURSOR } from "./lister.ts";
import { nearestUris, refusal } from "./nearest.ts";
import { failureError, type ToolFailure } from "./outcome.ts";
import { type ResourceTemplate, templateByUri } from "./templates.ts";
import { shown } from "./text.ts";

/** At most this many pages of a listing are read for one completion. */
export const MAX_PAGES = 10;

export interface CompleterOptions {
  /** The templates offered (their read tools exposed). */
  templates: readonly ResourceTemplate[];
  exposed: ReadonlySet<string>;
  cache: CallCache;
}

export type CompleteAnswer = { result: { completion: Completion | Omit<Completion, "total"> } } | {
  error: CallError;
};

function invalid(message: string, data?: unknown): { error: CallError } {
  return {
    error: { code: INVALID_PARAMS, message: `Invalid params: ${message}`, ...(data ? { data } : {}) },
  };
}

/**
 * The values of `variable` of `kind` the relay lists, given those chosen: read page by page (a few
 * at most, each kept briefly), `whole` when every page was read. A list the relay refuses (the
 * issues of a repository that is not there) has no values; one that is rate-limited, or cannot be
 * reached, is a failure.
 */
export async function listedValues(
  cache: CallCache,
  exposed: ReadonlySet<string>,
  kind: Kind,
  variable: string,
  chosen: Readonly<Record<string, string>>,
): Promise<{ candidates: CompletionCandidate[]; whole: boolean } | { failure: ToolFailure }> {
  const how = completionCall(kind, variable, chosen);
  const candidates: CompletionCandidate[] = [];
  if (!how || "missing" in how || !exposed.has(how.tool)) return { candidates, whole: true };
  let args = how.arguments;
  for (let page = 0; page < MAX_PAGES && candidates.length < MAX_LOOKED_AT; page++) {
    const reading = await cache.get(how.tool, args);
    if (!reading.ok) {
      const { failure } = reading;
      return failure.kind === "rate-limited" || failure.kind === "transport"
        ? { failure }
        : { candidates, whole: true };
    }
    candidates.push(...completionCandidates(kind, variable, reading.answer, chosen));
    const next = reading.answer.next_cursor;
    if (typeof next !== "string" || next === "" || next.length > MAX_TOOL_CURSOR) {
      return { candidates, whole: true };
    }
    args = { ...how.arguments, cursor: next };
  }
  return { candidates, whole: false };
}

/** What a request asks: the template, the variable, what was typed, the values chosen. */
type Asked = { template: ResourceTemplate; variable: string; typed: string; chosen: Record<string, string> };

export class Completer {
  #options: CompleterOptions;

  constructor(options: CompleterOptions) {
    this.#options = options;
  }

  async complete(params: unknown): Promise<CompleteAnswer> {
    const asked = this.#asked(params);
    if ("error" in asked) return asked;
    const { template, variable, typed, chosen } = asked;
    const { exposed, cache } = this.#options;
    const found = await listedValues(cache, exposed, template.kind, variable, chosen);
    if ("failure" in found) return { error: failureError(template.uriTemplate, found.failure, "complete") };
    const completion = rankCompletions(found.candidates, typed);
    // More values than were read: what was found, and that there are more (how many is not known).
    return {
      result: { completion: found.whole ? completion : { values: completion.values, hasMore: true } },
    };
  }

  #asked(params: unknown): Asked | { error: CallError } {
    if (!isObject(params) || !isObject(params.ref) || !isObject(params.argument)) {
      return invalid("completion/complete needs ref and argument objects");
    }
    const { ref, argument } = params;
    if (ref.type === "ref/prompt") return invalid("this server has no prompts to complete");
    if (ref.type !== "ref/resource" || typeof ref.uri !== "string") {
      return invalid('ref must be {"type": "ref/resource", "uri": <a resource template>}');
    }
    const { templates } = this.#options;
    const template = templateByUri(templates, ref.uri);
    if (!template) {
      const near = nearestUris(ref.uri, templates.map((t) => t.uriTemplate));
      const words = `${shown(ref.uri, 200)} is not a resource template here; the templates are ` +
        `${templates.map((t) => t.uriTemplate).join(", ") || "none"}`;
      return { error: refusal(ref.uri, "unknown-template", words, near) };
    }
    const { name, value } = argument;
    if (typeof name !== "string" || !template.variables.includes(name)) {
      return invalid(
        `argument.name must be one of the template's variables: ${template.variables.join(", ")}`,
      );
    }
    if (typeof value !== "string" || value.length > MAX_URI) {
      return invalid(`argument.value must be a string of at most ${MAX_URI} characters`);
    }
    const context = isObject(params.context) && isObject(params.context.arguments)
      ? params.context.arguments
      : {};
    const chosen: Record<string, string> = {};
    for (const variable of template.variables) {
      const given = context[variable];
      if (typeof given === "string" && given.length <= MAX_URI) chosen[variable] = given;
    }
    return { template, variable: name, typed: value, chosen };
  }
}
