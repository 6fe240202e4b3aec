// Template recognition and the signing rules (facade.md, "Sign and resubmit").
// Pure: decides what to do with a relay result; signing itself happens in the
// Signer, so nothing here can leak the key.

import { publishesKind } from "./tools.ts";
import { isObject } from "../wire/json.ts";
import type { JsonObject } from "../wire/mcp.ts";

/** An unsigned event exactly as the relay returned it. */
export interface Template {
  kind: number;
  created_at?: number;
  tags: string[][];
  content: string;
}

/** Kinds that authorize rather than publish; never signed, whatever the tool. */
export const AUTHORIZATION_KINDS: readonly number[] = [22242, 24242, 27235];

export type SigningDecision =
  /** Not a template (or not a recognizable one): pass the result on unchanged. */
  | { action: "pass" }
  /** All three conditions hold: sign this template and resubmit. */
  | { action: "sign"; template: Template }
  /**
   * A template the facade will not sign: answer with this tool error, carrying
   * the relay's structuredContent when `showResult` so the model sees it.
   */
  | { action: "refuse"; message: string; showResult: boolean; template: Template };

/**
 * Reads `structuredContent.unsigned` of a successful result as a template.
 * Returns undefined when the shape is not one the facade can sign as is:
 * such a result is passed through unchanged so the host can see it.
 */
export function recognizeTemplate(result: JsonObject): Template | undefined {
  if (result.isError === true) return undefined;
  const structured = result.structuredContent;
  if (!isObject(structured) || !isObject(structured.unsigned)) return undefined;
  const { kind, created_at, tags, content } = structured.unsigned;
  if (typeof kind !== "number" || !Number.isSafeInteger(kind) || kind < 0) return undefined;
  if (typeof content !== "string") return undefined;
  if (!Array.isArray(tags)) return undefined;
  for (const tag of tags) {
    if (!Array.isArray(tag) || !tag.every((value) => typeof value === "string")) return undefined;
  }
  if (created_at !== undefined && (typeof created_at !== "number" || !Number.isSafeInteger(created_at))) {
    return undefined;
  }
  const template: Template = { kind, tags: tags as string[][], content };
  if (created_at !== undefined) template.created_at = created_at;
  return template;
}

/**
 * Applies the three conditions and the authorization rule to a relay result
 * of `tool`. A read tool's template, an unexpected kind, or any template
 * without `--allow-writes` is refused; an authorization kind is refused with
 * its own message whatever the tool.
 */
export function decideSigning(
  tool: string,
  result: JsonObject,
  allowWrites: boolean,
): SigningDecision {
  const template = recognizeTemplate(result);
  if (!template) return { action: "pass" };
  if (AUTHORIZATION_KINDS.includes(template.kind)) {
    return {
      action: "refuse",
      message: `refused to sign a kind ${template.kind} authorization event returned by ${tool}`,
      showResult: false,
      template,
    };
  }
  if (!allowWrites || !publishesKind(tool, template.kind)) {
    return {
      action: "refuse",
      message:
        `the relay returned an unsigned event this tool is not expected to publish: kind ${template.kind} from ${tool}`,
      showResult: true,
      template,
    };
  }
  return { action: "sign", template };
}

/** The event to sign: the template as returned, with only a missing `created_at` filled. */
export function eventToSign(template: Template, nowSeconds: number): Required<Template> {
  return {
    kind: template.kind,
    created_at: template.created_at ?? nowSeconds,
    tags: template.tags,
    content: template.content,
  };
}
