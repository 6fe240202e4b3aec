// Readers of untyped JSON values and raw bytes, shared by the relay's checks and its default tools.

/** A tool call's arguments. */
export type Args = Record<string, unknown>;

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The value when it is a non-empty string. */
export const nonEmpty = (
  v: unknown,
): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** The strings in a list, or none when it is not one. */
export function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** Bytes as a string of one character each (for HTTP heads and btoa). */
export function latin1(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 0x8000) out += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return out;
}

/**
 * A value as Go's json.Marshal writes it: HTML's <, > and & escaped, and U+2028 and U+2029 too, which
 * is what the relay's text blocks and JSON bodies carry.
 */
export function goJson(value: unknown): string {
  const escapes: Record<string, string> = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
  };
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => escapes[c]);
}
