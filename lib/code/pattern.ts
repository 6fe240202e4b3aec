// The simple regular expressions input schemas use for ids and keys (`^[0-9a-f]{64}$`,
// `^[a-z0-9_-]{1,64}$`): literals, classes, `.`, `\d` `\w` `\s`, counts and anchors. A string made to
// match one, and whether a string does, without compiling the relay's pattern: a table is the relay's
// to write, and a pattern with groups or alternation is not this subset, so it is left alone. Pure.

/** One atom: the characters it takes, and how many times. */
interface Atom {
  takes: (c: string) => boolean;
  /** The character an example uses. */
  sample: string;
  min: number;
  max: number;
}

export interface Pattern {
  atoms: Atom[];
  start: boolean;
  end: boolean;
}

/** Longer patterns, counts and examples are not the ids this is for. */
const MAX_SOURCE = 256;
const MAX_COUNT = 1024;
const MAX_TEXT = 256;

type Test = (c: string) => boolean;
/** An atom as read: where it ends, what it takes, the character an example uses ("": none found). */
type Read = [number, Test, string];

const SHORTHANDS: Record<string, [Test, string]> = {
  d: [(c) => c >= "0" && c <= "9", "0"],
  w: [(c) => /^[A-Za-z0-9_]$/.test(c), "a"],
  s: [(c) => /^\s$/.test(c), " "],
};
/** Characters tried, in order, for an example of a negated class. */
const SAMPLES = "a0_-xA.b1";

/** A class, `[…]` after its opening bracket; undefined when not the subset. */
function parseClass(source: string, at: number): Read | undefined {
  const negated = source[at] === "^";
  let i = negated ? at + 1 : at;
  const parts: Test[] = [];
  let sample = "";
  while (i < source.length && source[i] !== "]") {
    let first = source[i];
    if (first === "\\") {
      const next = source[i + 1];
      if (next === undefined || /[A-Za-z0-9]/.test(next) && !SHORTHANDS[next]) return undefined;
      if (SHORTHANDS[next]) {
        // A shorthand cannot start a range: u-mode RegExp and RE2 refuse `[\d-x]`.
        if (source[i + 2] === "-" && source[i + 3] !== "]") return undefined;
        parts.push(SHORTHANDS[next][0]);
        sample ||= SHORTHANDS[next][1];
        i += 2;
        continue;
      }
      first = next;
      i++;
    } else if (first === "[") return undefined;
    sample ||= first;
    if (source[i + 1] === "-" && source[i + 2] !== undefined && source[i + 2] !== "]") {
      const last = source[i + 2];
      if (last === "\\" || last < first) return undefined;
      parts.push((c) => c >= first && c <= last);
      i += 3;
    } else {
      parts.push((c) => c === first);
      i++;
    }
  }
  if (i >= source.length) return undefined;
  const inside = (c: string) => parts.some((part) => part(c));
  if (!negated) return [i + 1, inside, sample];
  const outside = (c: string) => !inside(c);
  return [i + 1, outside, [...SAMPLES].find(outside) ?? ""];
}

/** The count after an atom: [end, min, max]; undefined when not the subset. */
function parseCount(source: string, at: number): [number, number, number] | undefined {
  const c = source[at];
  if (c === "?") return [at + 1, 0, 1];
  if (c === "*") return [at + 1, 0, MAX_COUNT];
  if (c === "+") return [at + 1, 1, MAX_COUNT];
  if (c !== "{") return [at, 1, 1];
  const match = /^\{(\d{1,4})(,(\d{0,4}))?\}/.exec(source.slice(at));
  if (!match) return undefined;
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : match[3] === "" ? MAX_COUNT : Number(match[3]);
  return min > max || min > MAX_COUNT ? undefined : [at + match[0].length, min, Math.min(max, MAX_COUNT)];
}

/** One atom at `at`; undefined when not the subset. */
function parseAtom(source: string, at: number): Read | undefined {
  const c = source[at];
  if (c === "[") return parseClass(source, at + 1);
  if (c === ".") return [at + 1, (x) => !"\n\r\u2028\u2029".includes(x), "a"];
  if (c === "\\") {
    const next = source[at + 1];
    if (next === undefined) return undefined;
    if (SHORTHANDS[next]) return [at + 2, ...SHORTHANDS[next]];
    return /[A-Za-z0-9]/.test(next) ? undefined : [at + 2, (x) => x === next, next];
  }
  if ("()|^$?*+{}]".includes(c)) return undefined;
  return [at + 1, (x) => x === c, c];
}

/** `source` as this subset reads it, or undefined when it is not of the subset. */
export function parsePattern(source: string): Pattern | undefined {
  // Printable ASCII only: ids' patterns are, and a class then never holds half a character.
  if (source.length > MAX_SOURCE || /[^\x20-\x7e]/.test(source)) return undefined;
  const start = source.startsWith("^");
  const end = source.endsWith("$") && !source.endsWith("\\$");
  const body = source.slice(start ? 1 : 0, end ? -1 : undefined);
  const atoms: Atom[] = [];
  let least = 0;
  for (let i = 0; i < body.length;) {
    const atom = parseAtom(body, i);
    if (!atom) return undefined;
    const count = parseCount(body, atom[0]);
    if (!count) return undefined;
    const [, takes, sample] = atom;
    least += count[1];
    if ((sample === "" && count[1] > 0) || least > MAX_COUNT) return undefined;
    atoms.push({ takes, sample, min: count[1], max: count[2] });
    i = count[0];
  }
  return { atoms, start, end };
}

/** The shortest string that matches: each atom's sample, as few times as it must be. */
export function patternExample(pattern: Pattern): string {
  return pattern.atoms.map((atom) => atom.sample.repeat(atom.min)).join("");
}

/**
 * Whether `text` matches, anywhere unless anchored: the positions each atom can reach, in turn, each
 * atom in one pass (a run of characters it takes, and the reached positions counted so far). A text
 * over 256 characters is taken as not matching (an example is made instead).
 */
export function patternMatches(pattern: Pattern, text: string): boolean {
  const chars = [...text];
  const n = chars.length;
  if (n > MAX_TEXT) return false;
  let reach = Array.from({ length: n + 1 }, (_, i) => !pattern.start || i === 0);
  for (const atom of pattern.atoms) {
    const counted = [0];
    for (let i = 0; i <= n; i++) counted.push(counted[i] + (reach[i] ? 1 : 0));
    const next: boolean[] = [];
    let run = 0;
    for (let j = 0; j <= n; j++) {
      if (j > 0) run = atom.takes(chars[j - 1]) ? run + 1 : 0;
      // From i to j: the atom took chars i to j-1 (j - i <= run), between min and max of them.
      const low = Math.max(j - run, j - atom.max, 0);
      const high = j - atom.min;
      next.push(high >= low && counted[high + 1] > counted[low]);
    }
    reach = next;
  }
  return pattern.end ? reach[n] : reach.includes(true);
}
