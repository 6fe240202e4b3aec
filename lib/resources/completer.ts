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
import { MAX_URI } from "./kinds.ts";
import { nearestUris, refusal } from "./nearest.ts";
import { failureError } from "./outcome.ts";
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

const empty = (): CompleteAnswer => ({ result: { completion: { values: [], total: 0, hasMore: false } } });

function invalid(message: string, data?: unknown): { error: CallError } {
  return {
    error: { code: INVALID_PARAMS, message: `Invalid params: ${message}`, ...(data ? { data } : {}) },
  };
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
    const how = completionCall(template.kind, variable, chosen);
    if (!how || "missing" in how || !this.#options.exposed.has(how.tool)) return empty();
    const candidates: CompletionCandidate[] = [];
    let args = how.arguments;
    for (let page = 0; page < MAX_PAGES && candidates.length < MAX_LOOKED_AT; page++) {
      const reading = await this.#options.cache.get(how.tool, args);
      if (!reading.ok) {
        const { kind } = reading.failure;
        if (kind === "rate-limited" || kind === "transport") {
          return { error: failureError(template.uriTemplate, reading.failure, "complete") };
        }
        // A repository that is not there has no issues to offer.
        return { result: { completion: rankCompletions(candidates, typed) } };
      }
      candidates.push(...completionCandidates(template.kind, variable, reading.answer, chosen));
      const next = reading.answer.next_cursor;
      if (typeof next !== "string" || next === "" || next.length > 1024) {
        return { result: { completion: rankCompletions(candidates, typed) } };
      }
      args = { ...how.arguments, cursor: next };
    }
    // More values than were read: what was found, and that there are more.
    const { values } = rankCompletions(candidates, typed);
    return { result: { completion: { values, hasMore: true } } };
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
      if (variable !== name && typeof given === "string" && given.length <= MAX_URI) chosen[variable] = given;
    }
    return { template, variable: name, typed: value, chosen };
  }
}
