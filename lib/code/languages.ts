// A function as each of tiny_search's languages shows it (the reference's search_docs has the same
// switch): TypeScript, its signature (signature.ts); JavaScript, the call with a JSDoc comment of its
// types; JSON, the `tools/call` request a host would send for it, with arguments that fill what the
// input schema requires. Its result type comes with it in each: the relay's outputSchema, what its
// version answers as tinyagent ships it, the shape of the answers seen (each marked so) or `unknown`. Pure.

import { isObject } from "../wire/json.ts";
import type { Tool } from "../wire/mcp.ts";
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

/** Nesting of an example's arguments filled in; deeper required objects are left empty. */
const EXAMPLE_DEPTH = 4;
/** Required properties of one object filled in. */
const EXAMPLE_MEMBERS = 64;

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

/** The `tools/call` request a host would send for `tool`, its arguments filling what is required. */
export function toolsCall(tool: Tool): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: tool.name, arguments: example(tool.inputSchema, "args", 0) ?? {} },
  };
}

/** A value that fits `schema` as far as its type, enum and required properties say; undefined: none. */
function example(schema: unknown, name: string, depth: number): unknown {
  if (!isObject(schema)) return undefined;
  if (Object.hasOwn(schema, "const")) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const union = Array.isArray(schema.anyOf) ? schema.anyOf : schema.oneOf;
  if (Array.isArray(union)) return example(union[0], name, depth);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "string":
      return `<${name}>`;
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    case "boolean":
      return false;
    case "array":
      return [];
    case "null":
      return null;
    case "object":
      return depth < EXAMPLE_DEPTH ? required(schema, depth) : {};
    default:
      return schema.properties !== undefined ? required(schema, depth) : undefined;
  }
}

/** The object's required properties, each an example of its own schema. */
function required(schema: Record<string, unknown>, depth: number): Record<string, unknown> {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const names = Array.isArray(schema.required) ? schema.required : [];
  const value: Record<string, unknown> = {};
  for (const name of names.slice(0, EXAMPLE_MEMBERS)) {
    if (typeof name !== "string" || !Object.hasOwn(properties, name)) continue;
    const filled = example(properties[name], name, depth + 1);
    // defineProperty: a property named __proto__ stays a property.
    if (filled !== undefined) {
      Object.defineProperty(value, name, {
        value: filled,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return value;
}
