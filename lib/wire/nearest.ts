// The nearest valid choices for a wrong guess, so a refusal teaches instead of dead-ending: a
// misspelt room, a wrong kind word, an unknown tool name. A bounded edit distance (optimal string
// alignment: insertions, deletions, substitutions, adjacent transpositions) with a cutoff, in
// linear memory, on at most MAX_COMPARED characters of each string and MAX_CANDIDATES candidates,
// so a hostile 100 KB guess costs what a short one does. Pure.

/** How many characters of each string are compared. */
export const MAX_COMPARED = 128;
/** How many candidates are looked at. */
export const MAX_CANDIDATES = 2000;
/** How many choices a refusal names. */
export const MAX_NEAREST = 3;

/**
 * The edit distance of `a` and `b`, or `limit + 1` once it is certain to exceed `limit`. Three rows
 * of `b.length + 1` numbers; only cells within `limit` of the diagonal are computed.
 */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const over = limit + 1;
  let before = new Array<number>(b.length + 1).fill(over);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => (j <= limit ? j : over));
  let current = new Array<number>(b.length + 1).fill(over);
  for (let i = 1; i <= a.length; i++) {
    current.fill(over);
    if (i <= limit) current[0] = i;
    let best = current[0];
    const from = Math.max(1, i - limit), to = Math.min(b.length, i + limit);
    for (let j = from; j <= to; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let cell = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        cell = Math.min(cell, before[j - 2] + 1);
      }
      current[j] = Math.min(cell, over);
      if (current[j] < best) best = current[j];
    }
    if (best > limit) return over;
    [before, previous, current] = [previous, current, before];
  }
  return Math.min(previous[b.length], over);
}

/** How far a guess of this length may be from a choice: a third of it, at least one edit. */
export function cutoffFor(length: number): number {
  return Math.max(1, Math.floor(Math.min(length, MAX_COMPARED) / 3));
}

/**
 * Up to `max` candidates nearest to `wrong`, nearest first; equally near ones keep the candidates'
 * order. Compared case-insensitively, on the strings' first MAX_COMPARED characters.
 */
export function nearest(wrong: string, candidates: readonly string[], max = MAX_NEAREST): string[] {
  return nearestBy(wrong, candidates, (candidate) => candidate, max);
}

/** Like `nearest`, comparing `key(candidate)` with `wrong`. */
export function nearestBy(
  wrong: string,
  candidates: readonly string[],
  key: (candidate: string) => string,
  max = MAX_NEAREST,
): string[] {
  const guess = wrong.slice(0, MAX_COMPARED).toLowerCase();
  const limit = cutoffFor(guess.length);
  const scored: { candidate: string; distance: number; order: number }[] = [];
  const seen = new Set<string>();
  for (const candidate of candidates.slice(0, MAX_CANDIDATES)) {
    if (seen.has(candidate)) continue;
    seen.add(candidate);
    const distance = editDistance(guess, key(candidate).slice(0, MAX_COMPARED).toLowerCase(), limit);
    if (distance <= limit) scored.push({ candidate, distance, order: scored.length });
  }
  scored.sort((x, y) => x.distance - y.distance || x.order - y.order);
  return scored.slice(0, max).map((entry) => entry.candidate);
}
