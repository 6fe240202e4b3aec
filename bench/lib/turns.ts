// Taking turns: each side measured in batches, the order of the sides rotating from batch to batch,
// so that no side always runs first, last or after the same one.

/** The order of `sides` for batch (or round) `round`: rotated by one each time. */
export function rotation<S>(sides: readonly S[], round: number): S[] {
  const k = round % sides.length;
  return [...sides.slice(k), ...sides.slice(0, k)];
}

/**
 * `count` samples of `measure` for every side, `batch` at a time per side, the order rotating.
 * With two sides this is plain alternation.
 */
export async function takeTurns<S extends string>(
  sides: readonly S[],
  count: number,
  batch: number,
  measure: (side: S, n: number) => Promise<number>,
): Promise<Record<S, number[]>> {
  const samples = Object.fromEntries(sides.map((side) => [side, [] as number[]])) as Record<S, number[]>;
  for (let b = 0; b * batch < count; b++) {
    for (const side of rotation(sides, b)) {
      for (let i = 0; i < batch && samples[side].length < count; i++) {
        samples[side].push(await measure(side, b * batch + i));
      }
    }
  }
  return samples;
}
