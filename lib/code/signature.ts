// A relay tool said as a TypeScript signature, `relay.name(args: {…}): Promise<…>`, so that a
// model writing a tiny_execute program sees how to call it (code-mode-facts 2: Cloudflare turns
// JSON Schemas into TS declarations the same way). Pure, and never throws: whatever the relay
// sent, a shape it does not know, or cannot afford (too deep, too large), is said as `unknown`.

import { isObject } from "../wire/json.ts";
import type { Tool } from "../wire/mcp.ts";

/** "brief": one line, no comments. "full": one property a line, each with its description as a comment. */
export type Form = "brief" | "full";

/** Nesting below the arguments object that is still read; deeper is `unknown`. */
export const MAX_DEPTH = 8;
/** Schema nodes one signature reads, whatever the schema holds (a 10,000-property one, a cyclic one). */
export const MAX_NODES = 400;
/** Properties, union members or enum values shown for one node; the rest are counted. */
export const MAX_MEMBERS = 64;
/** Characters of members one object lists before it counts the rest instead. */
export const MAX_CHARS = 6000;
/** The longest type said; a longer one (a union of long enums) is `unknown`. An object stays under it. */
const MAX_TYPE = MAX_CHARS + 2048;
const MAX_COMMENT = 160;
const MAX_NAME = 80;
const MAX_LITERAL = 80;

interface Walk {
  form: Form;
  nodes: number;
}

/** A type as written, and whether it needs parentheses before `[]` (a union or an intersection). */
interface Said {
  text: string;
  compound: boolean;
}

const UNKNOWN: Said = { text: "unknown", compound: false };
const plain = (text: string): Said => ({ text, compound: false });
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** How a program calls the tool: `relay.name`, or `relay["odd-name"]` for a name that is not an identifier. */
export function callee(name: string): string {
  return IDENTIFIER.test(name) ? `relay.${name}` : `relay[${JSON.stringify(name)}]`;
}

/**
 * Where a function's result type comes from: the relay's outputSchema, what the relay's version
 * answers as tinyagent ships it (relay_answers.ts), the answers seen, or nowhere yet.
 */
export interface ResultType {
  text: string;
  source: "schema" | "shipped" | "seen" | "unknown";
  /** For a seen type: how many answers it was merged from. */
  answers?: number;
  /** For a seen type shown in place of a shipped one: how the relay's answer differed from it. */
  differs?: string;
}

/** The second argument a write takes, as a type. */
export const WRITE_OPTIONS = "{ idempotencyKey?: string }";

/** What marks a shipped or seen type as what it is rather than a promise (nothing for another). */
export function resultMark(result: ResultType): string {
  if (result.source === "shipped") {
    return " /* what tinyrelay answers, as read from its source: not promised */";
  }
  if (result.source !== "seen") return "";
  const answers = result.answers ?? 0;
  return ` /* as seen in ${answers} answer${answers === 1 ? "" : "s"}, not promised */`;
}

/** The result type the relay's outputSchema promises, or `unknown` without one. */
export function schemaResult(tool: Tool): ResultType {
  return tool.outputSchema === undefined
    ? { text: "unknown", source: "unknown" }
    : { text: typeOf(tool.outputSchema, { form: "brief", nodes: 0 }, 0, "").text, source: "schema" };
}

/**
 * The tool's signature: its arguments from the input schema, a write's options, its result (the
 * outputSchema's or `unknown` unless given), a seen one marked so.
 */
export function toolSignature(
  tool: Tool,
  form: Form,
  { result = schemaResult(tool), write = false }: { result?: ResultType; write?: boolean } = {},
): string {
  const input: unknown = tool.inputSchema;
  const args = typeOf(input, { form, nodes: 0 }, 0, "").text;
  const optional = !hasRequired(input);
  const options = write ? `, options?: ${WRITE_OPTIONS}` : "";
  return `${callee(tool.name)}(args${optional ? "?" : ""}: ${args}${options}): Promise<${result.text}>${
    resultMark(result)
  }`;
}

/** Whether the arguments object names a property the call must carry. */
export function hasRequired(schema: unknown): boolean {
  if (!isObject(schema) || !Array.isArray(schema.required)) return false;
  const properties = isObject(schema.properties) ? schema.properties : {};
  return schema.required.some((name) => typeof name === "string" && Object.hasOwn(properties, name));
}

/** A schema as a type, in the given form. */
export function schemaType(schema: unknown, form: Form): string {
  return typeOf(schema, { form, nodes: 0 }, 0, "").text;
}

function typeOf(schema: unknown, walk: Walk, depth: number, indent: string): Said {
  const said = typeOfNode(schema, walk, depth, indent);
  return said.text.length > MAX_TYPE ? UNKNOWN : said;
}

function typeOfNode(schema: unknown, walk: Walk, depth: number, indent: string): Said {
  if (schema === false) return plain("never");
  if (!isObject(schema) || depth > MAX_DEPTH || ++walk.nodes > MAX_NODES) return UNKNOWN;
  if (schema.$ref !== undefined) return UNKNOWN;
  if (Object.hasOwn(schema, "const")) return plain(literal(schema.const) ?? "unknown");
  if (Array.isArray(schema.enum)) return enumType(schema.enum);
  const union = Array.isArray(schema.anyOf) ? schema.anyOf : schema.oneOf;
  if (Array.isArray(union)) return joined(members(union, walk, depth, indent), " | ");
  if (Array.isArray(schema.allOf)) return joined(members(schema.allOf, walk, depth, indent), " & ");
  const type = schema.type;
  if (Array.isArray(type)) {
    const named = [...new Set(type.slice(0, MAX_MEMBERS).filter((t): t is string => typeof t === "string"))];
    return joined(named.map((t) => namedType(t, schema, walk, depth, indent)), " | ");
  }
  if (typeof type === "string") return namedType(type, schema, walk, depth, indent);
  if (type !== undefined) return UNKNOWN;
  if (schema.properties !== undefined || schema.additionalProperties !== undefined) {
    return namedType("object", schema, walk, depth, indent);
  }
  return schema.items !== undefined ? namedType("array", schema, walk, depth, indent) : UNKNOWN;
}

function namedType(
  type: string,
  schema: Record<string, unknown>,
  walk: Walk,
  depth: number,
  indent: string,
): Said {
  switch (type) {
    case "string":
    case "number":
    case "boolean":
    case "null":
      return plain(type);
    case "integer":
      return plain("number");
    case "array":
      return arrayType(schema, walk, depth, indent);
    case "object":
      return plain(objectType(schema, walk, depth, indent));
    default:
      return UNKNOWN;
  }
}

/** The types of a union's or an intersection's members; none when there are too many to say. */
function members(schemas: unknown[], walk: Walk, depth: number, indent: string): Said[] {
  return schemas.length > MAX_MEMBERS ? [] : schemas.map((s) => typeOf(s, walk, depth + 1, indent));
}

/** Members joined as a union or intersection, duplicates once, at most MAX_MEMBERS; none is `unknown`. */
function joined(members: Said[], by: " | " | " & "): Said {
  let texts = [...new Set(members.map((m) => (m.compound ? `(${m.text})` : m.text)))];
  // unknown absorbs a union and adds nothing to an intersection.
  if (by === " & ") texts = texts.filter((text) => text !== "unknown");
  if (texts.length === 0 || texts.length > MAX_MEMBERS || texts.includes("unknown")) {
    return UNKNOWN;
  }
  return texts.length === 1 ? plain(texts[0]) : { text: texts.join(by), compound: true };
}

/** A JSON value as a literal type, or undefined for one that has none (an object, an array, a long string). */
function literal(value: unknown): string | undefined {
  if (typeof value === "string") return value.length <= MAX_LITERAL ? JSON.stringify(value) : undefined;
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === "boolean" || value === null) return String(value);
  return undefined;
}

/** An enum as a union of its literals; too many, or one without a literal, as the union of their types. */
function enumType(values: unknown[]): Said {
  const literals = values.slice(0, MAX_MEMBERS + 1).map(literal);
  if (values.length <= MAX_MEMBERS && literals.every((l) => l !== undefined)) {
    return joined(literals.map((l) => plain(l as string)), " | ");
  }
  const kinds = new Set(values.slice(0, 1000).map((v) => (v === null ? "null" : typeof v)));
  const known = [...kinds].filter((k) => ["string", "number", "boolean", "null"].includes(k));
  return known.length === kinds.size ? joined(known.map(plain), " | ") : UNKNOWN;
}

function arrayType(schema: Record<string, unknown>, walk: Walk, depth: number, indent: string): Said {
  const tuple = Array.isArray(schema.prefixItems) ? schema.prefixItems : schema.items;
  if (Array.isArray(tuple)) {
    const shown = tuple.slice(0, MAX_MEMBERS).map((s) => typeOf(s, walk, depth + 1, indent).text);
    return plain(tuple.length > MAX_MEMBERS ? "unknown[]" : `[${shown.join(", ")}]`);
  }
  const item = schema.items === undefined ? UNKNOWN : typeOf(schema.items, walk, depth + 1, indent);
  return plain(item.compound ? `(${item.text})[]` : `${item.text}[]`);
}

/** A property's name as a key: bare when it is an identifier, quoted otherwise. */
function key(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** A description as the text of a one-line comment: spaces collapsed, cut, unable to close the comment. */
export function commentText(description: string): string {
  const line = description.replace(/\s+/g, " ").trim().replaceAll("*/", "*\\/");
  return line.length > MAX_COMMENT ? `${line.slice(0, MAX_COMMENT - 1)}…` : line;
}

function objectType(schema: Record<string, unknown>, walk: Walk, depth: number, indent: string): string {
  const properties = isObject(schema.properties) ? schema.properties : undefined;
  const names = properties ? Object.keys(properties) : [];
  const extra = schema.additionalProperties;
  const inner = `${indent}  `;
  if (names.length === 0 && !isObject(extra)) {
    return properties !== undefined || extra === false ? "{}" : "object";
  }
  if (names.length === 0) return `Record<string, ${typeOf(extra, walk, depth + 1, inner).text}>`;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const members: string[] = [];
  let used = 0;
  let left = 0;
  for (const name of names) {
    if (members.length >= MAX_MEMBERS || used >= MAX_CHARS || name.length > MAX_NAME) {
      left++;
      continue;
    }
    const property = properties![name];
    const type = typeOf(property, walk, depth + 1, inner).text;
    const mark = required.has(name) ? "" : "?";
    const about = walk.form === "full" && isObject(property) && typeof property.description === "string"
      ? commentText(property.description)
      : "";
    const member = `${about ? `/** ${about} */\n${inner}` : ""}${key(name)}${mark}: ${type};`;
    if (used + member.length > MAX_CHARS) {
      left++;
      continue;
    }
    used += member.length;
    members.push(member);
  }
  if (extra === true || isObject(extra)) {
    const index = `[key: string]: ${
      extra === true ? "unknown" : typeOf(extra, walk, depth + 1, inner).text
    };`;
    if (used + index.length <= MAX_CHARS) members.push(index);
    else left++;
  }
  if (left > 0) members.push(`/* ${left} more propert${left === 1 ? "y" : "ies"} not shown */`);
  if (walk.form === "full") return `{\n${members.map((m) => `${inner}${m}\n`).join("")}${indent}}`;
  return `{ ${members.join(" ").replace(/;$/, "")} }`;
}
