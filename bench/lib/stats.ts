/** Latency summary of a sample set, in ms (nearest-rank percentiles). */
export interface Summary {
  n: number;
  p50: number;
  p99: number;
  min: number;
  max: number;
  mean: number;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export function summarize(samples: number[]): Summary {
  const s = [...samples].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / (s.length || 1);
  return { n: s.length, p50: round(percentile(s, 50)), p99: round(percentile(s, 99)), min: round(s[0]), max: round(s[s.length - 1]), mean: round(mean) };
}

export function median(samples: number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const mid = s.length >> 1;
  return round(s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2);
}

/** Milliseconds since `t0` (a `performance.now()` reading). */
export function since(t0: number): number {
  return performance.now() - t0;
}

export { round };
