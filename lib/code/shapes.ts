// The shape of the answers a relay tool gave, for tiny_search to show as its result type where the relay
// declares no outputSchema: field names and JSON types, an array as its elements' merged shape, a field
// optional where some answer lacked it, never a value. Whatever an answer holds (deep, wide, a graph
// that loops, 10,000 fields), the work one answer costs and the shape kept are bounded: past a bound a
// part is `unknown` or its fields are said to go on. Pure.

/** Levels of nesting kept below the answer itself; deeper is `unknown`. */
export const MAX_DEPTH = 6;
/** Fields kept for one object, across every answer merged; the rest are said to go on. */
export const MAX_FIELDS = 40;
/** Keys of one object read from one answer; past them its fields are said to go on. */
export const MAX_KEYS_READ = 200;
/** Nodes (fields and array elements) one tool's shape keeps, whatever its answers hold. */
export const MAX_NODES = 400;
/** Values one answer visits; what is left of it is not read (what was read still counts). */
export const MAX_VISITS = 1000;
/** Elements of one array read from one answer (its first ones). */
export const MAX_ITEMS = 20;
/** The longest field name kept. */
export const MAX_NAME = 64;

const STRING = 1, NUMBER = 2, BOOLEAN = 4, NULL = 8;
const SCALARS: [number, string][] = [[STRING, "string"], [NUMBER, "number"], [BOOLEAN, "boolean"]];
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** What was seen at one place of the answers. */
interface Node {
  /** The scalar JSON types seen, as bits. */
  scalars: number;
  object?: { seen: number; fields: Map<string, { node: Node; seen: number }>; more: boolean };
  /** Arrays seen: their elements merged. */
  items?: Node;
  /** Something here was not read (too deep, past a bound, not JSON): its type is not said. */
  unknown?: true;
}

/** A type as written, and whether it needs parentheses before `[]`. */
interface Said {
  text: string;
  compound: boolean;
}

const node = (): Node => ({ scalars: 0 });

/** The merged shape of one tool's answers. */
export class ResultShape {
  #root = node();
  #nodes = 1;
  #visits = 0;
  /** Answers merged in. */
  answers = 0;

  /** Merges one answer in (a JSON value; anything else is said as `unknown`). */
  absorb(value: unknown): void {
    this.answers++;
    this.#visits = 0;
    this.#absorb(this.#root, value, 0);
  }

  /**
   * The shape as a TypeScript type on one line of at most `maxChars`: as deep as fits, the levels
   * below said as `object` when it would not.
   */
  type(maxChars: number): string {
    let text = "unknown";
    for (let depth = MAX_DEPTH; depth >= 0; depth--) {
      text = said(this.#root, depth).text;
      if (text.length <= maxChars) return text;
    }
    return text.length <= maxChars ? text : "unknown";
  }

  #absorb(at: Node, value: unknown, depth: number): void {
    if (++this.#visits > MAX_VISITS) return;
    if (value === null) at.scalars |= NULL;
    else if (typeof value === "string") at.scalars |= STRING;
    else if (typeof value === "number") at.scalars |= NUMBER;
    else if (typeof value === "boolean") at.scalars |= BOOLEAN;
    else if (typeof value !== "object" || depth >= MAX_DEPTH) at.unknown = true;
    else if (Array.isArray(value)) this.#array(at, value, depth);
    else this.#object(at, value as Record<string, unknown>, depth);
  }

  #array(at: Node, value: unknown[], depth: number): void {
    if (!at.items) {
      if (this.#nodes >= MAX_NODES) return void (at.unknown = true);
      this.#nodes++;
      at.items = node();
    }
    const count = Math.min(value.length, MAX_ITEMS);
    for (let i = 0; i < count; i++) this.#absorb(at.items, value[i], depth + 1);
  }

  #object(at: Node, value: Record<string, unknown>, depth: number): void {
    const object = at.object ??= { seen: 0, fields: new Map(), more: false };
    object.seen++;
    let read = 0;
    for (const name in value) {
      if (!Object.hasOwn(value, name)) continue;
      if (++read > MAX_KEYS_READ) {
        object.more = true;
        break;
      }
      let field = object.fields.get(name);
      if (!field) {
        if (name.length > MAX_NAME || object.fields.size >= MAX_FIELDS || this.#nodes >= MAX_NODES) {
          object.more = true;
          continue;
        }
        this.#nodes++;
        field = { node: node(), seen: 0 };
        object.fields.set(name, field);
      }
      field.seen++;
      this.#absorb(field.node, value[name], depth + 1);
    }
  }
}

/** A field's name as a key: bare when it is an identifier, quoted otherwise. */
function key(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** What was seen at `at` as a type, objects written out `depth` levels down and `object` below. */
function said(at: Node, depth: number): Said {
  if (at.unknown) return { text: "unknown", compound: false };
  const parts: string[] = [];
  if (at.object) parts.push(depth > 0 ? objectText(at.object, depth) : "object");
  if (at.items) {
    const item = said(at.items, depth - 1);
    parts.push(item.compound ? `(${item.text})[]` : `${item.text}[]`);
  }
  for (const [bit, name] of SCALARS) if (at.scalars & bit) parts.push(name);
  if (at.scalars & NULL) parts.push("null");
  if (parts.length === 0) return { text: "unknown", compound: false };
  return { text: parts.join(" | "), compound: parts.length > 1 };
}

function objectText(object: NonNullable<Node["object"]>, depth: number): string {
  const members: string[] = [];
  for (const [name, field] of object.fields) {
    members.push(`${key(name)}${field.seen < object.seen ? "?" : ""}: ${said(field.node, depth - 1).text}`);
  }
  if (object.more) members.push("/* more fields not shown */");
  return members.length === 0 ? "{}" : `{ ${members.join("; ")} }`;
}
