// An example value for an input schema, as the JSON language's `tools/call` shows it: a value the
// tool's own schema accepts, so a host or model sending it as written meets no refusal for its
// shape. What it fills: const, enum, default, the first of a union; strings to their pattern (the
// simple subset of pattern.ts) and lengths, a readable `<name>` where that fits; numbers within their
// bounds; arrays to minItems; objects' required properties, then others to minProperties.
// Bounded in depth, in members and in values in all, whatever the table holds. Pure.

import { isObject } from "../wire/json.ts";
import { parsePattern, patternExample, patternMatches } from "./pattern.ts";

/** Nesting of an example's arguments filled in; deeper objects are left empty. */
const EXAMPLE_DEPTH = 4;
/** Properties of one object, or items of one array, filled in. */
const EXAMPLE_MEMBERS = 64;
/** Values in one example, nested ones counted: the table is the relay's to write. */
const EXAMPLE_VALUES = 1024;

type Schema = Record<string, unknown>;
/** The values an example may still hold. */
type Budget = { left: number };

/** A value that fits `schema`, named `name` where a placeholder shows; undefined: none to give. */
export function example(schema: unknown, name: string): unknown {
  return valueOf(schema, name, 0, { left: EXAMPLE_VALUES });
}

function valueOf(schema: unknown, name: string, depth: number, budget: Budget): unknown {
  if (!isObject(schema) || depth > EXAMPLE_DEPTH) return undefined;
  if (Object.hasOwn(schema, "const")) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const union = Array.isArray(schema.anyOf) ? schema.anyOf : schema.oneOf;
  if (Array.isArray(union)) return valueOf(union[0], name, depth + 1, budget);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "string":
      return stringExample(schema, name);
    case "integer":
    case "number":
      return numberExample(schema, type === "integer");
    case "boolean":
      return false;
    case "array":
      return arrayExample(schema, name, depth, budget);
    case "null":
      return null;
    case "object":
      return depth < EXAMPLE_DEPTH ? objectExample(schema, depth, budget) : {};
    default:
      return schema.properties !== undefined ? objectExample(schema, depth, budget) : undefined;
  }
}

const count = (value: unknown) => typeof value === "number" && value >= 0 ? Math.ceil(value) : undefined;

/** Within minLength and maxLength, in characters as JSON Schema counts them. */
function fitsLength(schema: Schema, text: string): boolean {
  const length = [...text].length;
  return length >= (count(schema.minLength) ?? 0) && length <= (count(schema.maxLength) ?? Infinity);
}

/** `<name>` where the schema takes it; else the name, or the pattern's own example; else cut or padded. */
function stringExample(schema: Schema, name: string): string {
  const placeholder = `<${name}>`;
  const pattern = typeof schema.pattern === "string" ? parsePattern(schema.pattern) : undefined;
  const fits = (text: string) => fitsLength(schema, text) && (!pattern || patternMatches(pattern, text));
  const candidates = [placeholder, name, ...(pattern ? [patternExample(pattern)] : [])];
  const fitting = candidates.find(fits);
  if (fitting !== undefined) return fitting;
  if (pattern) return candidates[candidates.length - 1];
  const least = Math.min(count(schema.minLength) ?? 0, EXAMPLE_MEMBERS * 16);
  return [...placeholder.padEnd(least, "x")].slice(0, count(schema.maxLength)).join("");
}

/** 1, or the minimum, or the maximum when 1 is over it; an exclusive bound stepped over. */
function numberExample(schema: Schema, integer: boolean): number {
  const step = integer ? 1 : 0.5;
  const low = typeof schema.minimum === "number"
    ? schema.minimum
    : typeof schema.exclusiveMinimum === "number"
    ? schema.exclusiveMinimum + step
    : undefined;
  const high = typeof schema.maximum === "number"
    ? schema.maximum
    : typeof schema.exclusiveMaximum === "number"
    ? schema.exclusiveMaximum - step
    : undefined;
  const value = low ?? (high !== undefined && high < 1 ? high : 1);
  return integer ? (low !== undefined ? Math.ceil(value) : Math.floor(value)) : value;
}

/** As many items as minItems asks (as the budget allows), each its items schema's example. */
function arrayExample(schema: Schema, name: string, depth: number, budget: Budget): unknown[] {
  const least = Math.min(count(schema.minItems) ?? 0, EXAMPLE_MEMBERS);
  if (least === 0 || depth >= EXAMPLE_DEPTH || budget.left <= 0) return [];
  const before = budget.left--;
  const item = valueOf(schema.items, name, depth + 1, budget) ?? `<${name}>`;
  const each = before - budget.left;
  const times = Math.min(least, 1 + Math.floor(budget.left / each));
  budget.left -= each * (times - 1);
  return Array.from({ length: times }, () => item);
}

/** The required properties, each an example of its own schema; then optional ones to minProperties. */
function objectExample(schema: Schema, depth: number, budget: Budget): Record<string, unknown> {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  const least = count(schema.minProperties) ?? 0;
  const value: Record<string, unknown> = {};
  let filled = 0;
  const fill = (name: unknown) => {
    if (typeof name !== "string" || !Object.hasOwn(properties, name) || Object.hasOwn(value, name)) return;
    if (budget.left <= 0) return;
    budget.left--;
    const member = valueOf(properties[name], name, depth + 1, budget);
    if (member === undefined) return;
    // defineProperty: a property named __proto__ stays a property.
    Object.defineProperty(value, name, {
      value: member,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    filled++;
  };
  for (const name of required.slice(0, EXAMPLE_MEMBERS)) fill(name);
  const enough = Math.min(least, EXAMPLE_MEMBERS);
  for (const name of Object.keys(properties)) {
    if (filled >= enough) break;
    fill(name);
  }
  // Still short of minProperties: keys of its own, where the schema takes other keys.
  const other = schema.additionalProperties;
  if (other === false) return value;
  for (let n = 1; filled < enough && budget.left > 0; n++) {
    const key = n === 1 ? "<key>" : `<key${n}>`;
    if (Object.hasOwn(value, key)) continue;
    budget.left--;
    value[key] = (isObject(other) ? valueOf(other, key, depth + 1, budget) : undefined) ?? "<value>";
    filled++;
  }
  return value;
}
