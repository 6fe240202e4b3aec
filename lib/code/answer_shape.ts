// A JSON answer's shape as data (relay_answers.ts writes the relay's in it), said as a TypeScript type
// to the depth and length a model can use, and an answer checked against it: whether it is what the
// shape says, every field it carries known, every field it must carry there, every value of its type.
// Bounded whatever the answer holds. Pure.

/** A JSON type: a scalar, an object of fields (a `?` for one that may be absent), a list, a map, a union. */
export type Shape =
  | "string"
  | "integer"
  | "number"
  | "boolean"
  | "null"
  | "unknown"
  | { readonly object: Readonly<Record<string, Field>> }
  | { readonly array: Shape }
  | { readonly map: Shape }
  | { readonly union: readonly Shape[] };

/** A field's shape, or its shape when it may be absent. */
export type Field = Shape | { readonly optional: Shape };

/** Levels written out below the answer; deeper objects are said as `object`. */
const MAX_DEPTH = 6;
/** Values one check visits; past them the rest is taken as fitting (what was read still counts). */
const MAX_VISITS = 5000;
/** Elements of one list a check reads (its first ones). */
const MAX_ITEMS = 50;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (name: string) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));

function fieldShape(field: Field): { shape: Shape; optional: boolean } {
  return typeof field === "object" && "optional" in field
    ? { shape: field.optional, optional: true }
    : { shape: field, optional: false };
}

/** The shape as a type, objects written out `depth` levels down; `compound` when it needs parentheses. */
function said(shape: Shape, depth: number): { text: string; compound: boolean } {
  if (typeof shape === "string") return { text: shape === "integer" ? "number" : shape, compound: false };
  if ("union" in shape) {
    const texts = [...new Set(shape.union.map((member) => said(member, depth).text))];
    return { text: texts.join(" | "), compound: texts.length > 1 };
  }
  if ("array" in shape) {
    const item = said(shape.array, depth - 1);
    return { text: item.compound ? `(${item.text})[]` : `${item.text}[]`, compound: false };
  }
  if ("map" in shape) {
    return {
      text: depth > 0 ? `Record<string, ${said(shape.map, depth - 1).text}>` : "object",
      compound: false,
    };
  }
  if (depth <= 0) return { text: "object", compound: false };
  const members = Object.entries(shape.object).map(([name, field]) => {
    const { shape: inner, optional } = fieldShape(field);
    return `${key(name)}${optional ? "?" : ""}: ${said(inner, depth - 1).text}`;
  });
  return { text: members.length === 0 ? "{}" : `{ ${members.join("; ")} }`, compound: false };
}

/** The shape as a TypeScript type of at most `maxChars`: as deep as fits, deeper levels said as `object`. */
export function shapeType(shape: Shape, maxChars: number): string {
  for (let depth = MAX_DEPTH; depth >= 0; depth--) {
    const text = said(shape, depth).text;
    if (text.length <= maxChars) return text;
  }
  return "unknown";
}

/** Where a check stands: the values it may still visit. */
interface Check {
  visits: number;
}

/** Why `value` is not what `shape` says (a path and a reason), or undefined when it is. */
function misfit(shape: Shape, value: unknown, path: string, check: Check): string | undefined {
  if (++check.visits > MAX_VISITS) return undefined;
  if (typeof shape === "string") return scalarMisfit(shape, value, path);
  if ("union" in shape) {
    const reasons = shape.union.map((member) => misfit(member, value, path, check));
    return reasons.includes(undefined) ? undefined : reasons[0];
  }
  if ("array" in shape) {
    if (!Array.isArray(value)) return `${path} is not a list`;
    for (let i = 0; i < Math.min(value.length, MAX_ITEMS); i++) {
      const reason = misfit(shape.array, value[i], `${path}[${i}]`, check);
      if (reason) return reason;
    }
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return `${path} is not an object`;
  const record = value as Record<string, unknown>;
  if ("map" in shape) {
    for (const name of Object.keys(record).slice(0, MAX_ITEMS)) {
      const reason = misfit(shape.map, record[name], `${path}.${name}`, check);
      if (reason) return reason;
    }
    return undefined;
  }
  return objectMisfit(shape.object, record, path, check);
}

function scalarMisfit(shape: Exclude<Shape, object>, value: unknown, path: string): string | undefined {
  const fits = shape === "unknown" ||
    (shape === "null"
      ? value === null
      : shape === "integer"
      ? Number.isInteger(value)
      : shape === "number"
      ? typeof value === "number"
      : typeof value === shape);
  return fits ? undefined : `${path} is ${value === null ? "null" : typeof value}, not ${shape}`;
}

function objectMisfit(
  fields: Readonly<Record<string, Field>>,
  record: Record<string, unknown>,
  path: string,
  check: Check,
): string | undefined {
  for (const name of Object.keys(record)) {
    if (!Object.hasOwn(fields, name)) return `${path}.${name} is a field the shipped type does not have`;
  }
  for (const [name, field] of Object.entries(fields)) {
    const { shape, optional } = fieldShape(field);
    if (!Object.hasOwn(record, name)) {
      if (optional) continue;
      return `${path}.${name} is missing`;
    }
    const reason = misfit(shape, record[name], `${path}.${name}`, check);
    if (reason) return reason;
  }
  return undefined;
}

/** Why an answer is not what the shape says (where, and how), or undefined when it is. */
export function answerMisfit(shape: Shape, value: unknown): string | undefined {
  return misfit(shape, value, "answer", { visits: 0 });
}
