// A tool's arguments checked against its input schema before the tool runs, as tinyrelay's
// internal/mcp/tools.go validates them: the keywords its tables use (type, enum, pattern, minLength
// and maxLength in characters, minimum, maximum, required, minProperties, additionalProperties: false,
// items), in its order, with its words. minItems and maxItems are listed by its tables and not checked
// by it, so not here either: the builders check what they need. Pure.

import { isRecord } from "./values.ts";

type Schema = Record<string, unknown>;

/**
 * A number as Go's `%v` prints a float64: its shortest digits, in exponent form from 1e+06 up and
 * below 1e-04 (so 4194304 is "4.194304e+06", as the relay's bound on max_bytes reads).
 */
export function goNumber(n: number): string {
  if (n === 0 || !Number.isFinite(n)) return String(n);
  const [digits, exponent] = n.toExponential().split("e");
  const exp = Number(exponent);
  if (exp < -4 || exp >= 6) {
    return `${digits}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  return String(n);
}

/** A value as the relay compares it with an enum's members: strings as they are, numbers in full. */
function scalar(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") return Number.isInteger(value) ? BigInt(value).toString() : String(value);
  return "";
}

/** Orders keys by code point, as Go's sort.Strings does (byte order of UTF-8). */
function byCodePoint(a: string, b: string): number {
  const x = [...a], y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

const TYPE_WORDS: Record<string, [(v: unknown) => boolean, string]> = {
  string: [(v) => typeof v === "string", "must be a string"],
  integer: [(v) => typeof v === "number" && Number.isInteger(v), "must be an integer"],
  number: [(v) => typeof v === "number", "must be a number"],
  boolean: [(v) => typeof v === "boolean", "must be true or false"],
  object: [isRecord, "must be an object"],
  array: [Array.isArray, "must be an array"],
};

const join = (path: string, key: string) => path === "" ? key : `${path}.${key}`;

/** The scalar keywords: type, enum, pattern, lengths and bounds. */
function scalarProblem(schema: Schema, value: unknown, where: string): string | undefined {
  const type = typeof schema.type === "string" ? TYPE_WORDS[schema.type] : undefined;
  if (type && !type[0](value)) return `${where} ${type[1]}`;
  const options = Array.isArray(schema.enum) ? schema.enum.map(scalar) : [];
  if (options.length > 0 && !options.includes(scalar(value))) {
    return `${where} must be one of ${options.join(", ")}`;
  }
  if (typeof schema.pattern === "string") {
    if (!new RegExp(schema.pattern).test(typeof value === "string" ? value : "")) {
      return `${where} does not match ${schema.pattern}`;
    }
  }
  if (typeof value === "string") {
    const characters = [...value].length;
    if (typeof schema.minLength === "number" && characters < schema.minLength) {
      return `${where} must not be empty`;
    }
    if (typeof schema.maxLength === "number" && characters > schema.maxLength) {
      return `${where} is longer than ${Math.trunc(schema.maxLength)} characters`;
    }
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) {
      return `${where} must be at least ${goNumber(schema.minimum)}`;
    }
    if (typeof schema.maximum === "number" && value > schema.maximum) {
      return `${where} must be at most ${goNumber(schema.maximum)}`;
    }
  }
  return undefined;
}

/** An object's keywords: required in its order, minProperties, then each key in code-point order. */
function objectProblem(schema: Schema, value: Record<string, unknown>, path: string): string | undefined {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((k) => typeof k === "string") : [];
  for (const key of required) if (!Object.hasOwn(value, key)) return `${join(path, key)} is required`;
  const keys = Object.keys(value).sort(byCodePoint);
  if (typeof schema.minProperties === "number" && keys.length < schema.minProperties) {
    return `${path === "" ? "argument" : path} must not be empty`;
  }
  for (const key of keys) {
    const property = properties[key];
    if (!isRecord(property)) {
      if (schema.additionalProperties !== undefined && schema.additionalProperties !== true) {
        return `${join(path, key)} is not a known argument`;
      }
      continue;
    }
    if (value[key] === null) continue;
    const problem = validateAt(property, value[key], join(path, key));
    if (problem) return problem;
  }
  return undefined;
}

function validateAt(schema: Schema, value: unknown, path: string): string | undefined {
  const where = path === "" ? "argument" : path;
  const problem = scalarProblem(schema, value, where);
  if (problem) return problem;
  if (isRecord(value)) {
    const inner = objectProblem(schema, value, path);
    if (inner) return inner;
  }
  if (Array.isArray(value) && isRecord(schema.items)) {
    for (let i = 0; i < value.length; i++) {
      const inner = validateAt(schema.items, value[i], `${where}[${i}]`);
      if (inner) return inner;
    }
  }
  return undefined;
}

/** Why these arguments fail the schema, in the relay's words; undefined when they pass. */
export function validateArguments(schema: Schema, args: Record<string, unknown>): string | undefined {
  return validateAt(schema, args, "");
}
