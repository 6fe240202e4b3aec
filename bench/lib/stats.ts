// Summaries of timing samples and the ratios the targets are judged on.

export interface Summary {
  n: number;
  p50: number;
  p95: number;
  mean: number;
  min: number;
  max: number;
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return NaN;
  return n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

export function summarize(values: number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: median(sorted),
    p95: percentile(sorted, 95),
    mean: sorted.reduce((a, b) => a + b, 0) / (sorted.length || 1),
    min: sorted[0] ?? NaN,
    max: sorted[sorted.length - 1] ?? NaN,
  };
}

/** A small deterministic generator, so a result file can be recomputed exactly. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A 95% bootstrap interval for median(a) / median(b): how far the headline ratio could move
 * from sampling noise alone.
 */
export function ratioInterval(a: number[], b: number[], rounds = 1000): [number, number] {
  const next = random(0x5eed);
  const resample = (values: number[]) => values.map(() => values[Math.floor(next() * values.length)]);
  const ratios: number[] = [];
  for (let i = 0; i < rounds; i++) ratios.push(median(resample(a)) / median(resample(b)));
  ratios.sort((x, y) => x - y);
  return [percentile(ratios, 2.5), percentile(ratios, 97.5)];
}

/** Least-squares slope of y over x. */
export function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

export const MiB = 1024 * 1024;

export function ms(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(value < 10 ? 2 : 1)} ms` : "—";
}

export function mib(bytes: number): string {
  return Number.isFinite(bytes) ? `${(bytes / MiB).toFixed(1)} MiB` : "—";
}

export function times(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}×` : "—";
}
