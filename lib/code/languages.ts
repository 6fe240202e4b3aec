// A function as each of tiny_search's languages shows it (the reference's search_docs has the same
// switch): TypeScript, its signature (signature.ts); JavaScript, the call with a JSDoc comment of its
// types; JSON, the `tools/call` request a host would send for it, with arguments its input schema
// accepts (example.ts). Its result type comes with it in each: the relay's outputSchema, what its
// version answers as tinyagent ships it, the shape of the answers seen (each marked so) or `unknown`. Pure.

import type { Tool } from "../wire/mcp.ts";
import { example } from "./example.ts";
import {
  callee,
  type Form,
  hasRequired,
  resultMark,
  type ResultType,
  schemaType,
  toolSignature,
  WRITE_OPTIONS,
} from "./signature.ts";

export type Language = "typescript" | "javascript" | "json";
export const LANGUAGES: readonly Language[] = ["typescript", "javascript", "json"];

/** The function `tool` in `language`: what a match shows before its description. */
export function functionText(
  tool: Tool,
  language: Language,
  form: Form,
  result: ResultType,
  write: boolean,
): string {
  if (language === "typescript") return toolSignature(tool, form, { result, write });
  if (language === "javascript") return jsdoc(tool, form, result, write);
  const request = JSON.stringify(toolsCall(tool));
  return form === "brief"
    ? request
    : `${request}\nAnswers (structuredContent): ${result.text}${resultMark(result)}`;
}

/** The call with a JSDoc comment of its argument and result types, on one line when brief. */
function jsdoc(tool: Tool, form: Form, result: ResultType, write: boolean): string {
  const optional = !hasRequired(tool.inputSchema);
  const tags = [
    `@param {${schemaType(tool.inputSchema, "brief")}} ${optional ? "[args]" : "args"}`,
    ...(write ? [`@param {${WRITE_OPTIONS}} [options] a key this write is kept under`] : []),
    `@returns {Promise<${result.text}>}${resultMark(result)}`,
  ];
  const call = `${callee(tool.name)}(args${write ? ", options" : ""})`;
  return form === "brief"
    ? `/** ${tags.join(" ")} */ ${call}`
    : `/**\n${tags.map((tag) => ` * ${tag}\n`).join("")} */\n${call}`;
}

/** The `tools/call` request a host would send for `tool`, with arguments its schema accepts. */
export function toolsCall(tool: Tool): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: tool.name, arguments: example(tool.inputSchema, "args") ?? {} },
  };
}
