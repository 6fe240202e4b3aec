// A JSON value's canonical text (object keys sorted at every depth, so the same arguments written in
// another order are the same) and its SHA-256: the exposed table's short hash that tiny_search and
// tiny_execute both show, and a write's arguments kept under an idempotency key (idempotency.ts).
// No I/O: WebCrypto's digest only computes.

/** Hex digits of the table's hash shown to the model: enough to tell two tables apart. */
export const SHORT_HASH_CHARS = 12;

/** Objects with their keys sorted; arrays and scalars as they are. */
function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  // fromEntries defines each key as an own property, `__proto__` included.
  return Object.fromEntries(Object.keys(record).sort().map((key) => [key, record[key]]));
}

/**
 * The canonical JSON text of `value`; undefined for a value JSON cannot hold (a cycle, a BigInt,
 * nesting past the runtime's stack), so the caller says what it cannot do rather than throw.
 */
export function canonicalJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value, sortedKeys);
  } catch {
    return undefined;
  }
}

/** SHA-256 of `text`'s UTF-8 bytes, as 64 lowercase hex digits. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The first SHORT_HASH_CHARS hex digits of the SHA-256 of `value`'s canonical JSON. */
export async function shortHash(value: unknown): Promise<string> {
  return (await sha256Hex(canonicalJson(value) ?? "null")).slice(0, SHORT_HASH_CHARS);
}
