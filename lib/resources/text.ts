// Relay text made safe to show: the characters that would let it rewrite what a reader sees
// (controls, direction overrides, invisible formatting, line separators a viewer may break on)
// turned into visible \uXXXX escapes, and long text cut on a character boundary. Pure.

/**
 * Hiding characters: C0 and C1 controls but tab and line feed, U+2028 and U+2029, and every
 * format character (bidi overrides and isolates, zero-width spaces, the BOM, tag characters) but
 * the zero-width joiner and non-joiner, which scripts and emoji need.
 */
// deno-lint-ignore no-control-regex -- matching control characters is the point
const HIDING = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]|(?![\u200c\u200d])\p{Cf}/gu;

/** Text that cannot hold a hiding character: printable ASCII, tabs and line feeds (most of what relays carry). */
const PLAIN = /^[\t\n\x20-\x7e]*$/;

/** Each hiding character as \uXXXX, one escape per UTF-16 unit (so also valid inside a JSON string). */
export function escapeHiding(text: string): string {
  if (PLAIN.test(text)) return text;
  return text.replace(HIDING, (char) => {
    let out = "";
    for (let i = 0; i < char.length; i++) out += `\\u${char.charCodeAt(i).toString(16).padStart(4, "0")}`;
    return out;
  });
}

/** Whether `text` holds a hiding character, a tab or a line break. */
export function hasHidden(text: string): boolean {
  HIDING.lastIndex = 0;
  return HIDING.test(text) || /[\t\n]/.test(text);
}

/** `text` cut to at most `max` UTF-16 units, never inside a surrogate pair; how many units were left out. */
export function cut(text: string, max: number): { shown: string; left: number } {
  if (text.length <= max) return { shown: text, left: 0 };
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return { shown: text.slice(0, end), left: text.length - end };
}

/** `text` on one line: line breaks and tabs as spaces, hiding characters escaped, cut at `max` with "…". */
export function oneLine(text: string, max: number): string {
  const { shown, left } = cut(text, max);
  const flat = shown.replace(/\r\n|[\r\n\t]/g, " ");
  return `${escapeHiding(flat)}${left > 0 ? "…" : ""}`;
}

/** `text` as a quoted string for a message: one line, at most `max` characters. */
export function shown(text: string, max = 80): string {
  return `"${oneLine(text, max).replace(/"/g, '\\"')}"`;
}

/**
 * A count with thousands separators, as people read numbers (`1,234,567`): what toLocaleString("en-US")
 * writes for an integer, without its cost (Intl is slow enough to show in a read's time).
 */
export function count(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString("en-US");
  const digits = String(Math.abs(n));
  let out = digits.slice(0, digits.length % 3 || 3);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}
