/**
 * Fuzzy path scoring for fs:search and fs:suggest.
 *
 * A path matches when the query (lower-cased, whitespace removed) is a
 * case-insensitive subsequence of it. Rather than an O(path x query) dynamic
 * programme per candidate, a few linear-time alignments are tried and the best
 * one is kept: the tightest window after the leftmost match, the tightest window
 * before the rightmost match (which lands in the basename when it can), and the
 * query as a plain substring (first and last occurrence, basename prefix).
 * Which paths match at all is decided beforehand (prefilter.ts).
 *
 * Each matched character earns 1, plus 1 when it continues a consecutive run
 * (or, failing that, 0.8 when it starts a segment: after `/ _ - . space`, at a
 * camelCase hump or at the path start; the first character earns the full 1 for
 * a segment start), plus 0.5 when it lies in the basename. quality = earned /
 * (2.5 x query length), so a query that is a prefix of the basename scores 1.
 * score = 0.85 x quality + 0.15 x coverage, where coverage = query length /
 * basename length when every match is in the basename, else / path length: an
 * exact basename match scores 1, and shorter names win ties. Rounded to 4
 * decimals; callers break ties by path.
 */

/** Per-query scratch state, reused across candidates to avoid allocation. */
export class FuzzyQuery {
  readonly q: string;
  readonly m: number;
  private readonly a: Int32Array;
  private readonly b: Int32Array;
  /** Positions of the best alignment of the last `score` call. */
  readonly best: Int32Array;

  constructor(raw: string) {
    this.q = raw.replace(/\s+/g, '').toLowerCase();
    this.m = this.q.length;
    this.a = new Int32Array(this.m);
    this.b = new Int32Array(this.m);
    this.best = new Int32Array(this.m);
  }

  /**
   * A ceiling on `score` that costs far less: quality is at most 1, and a
   * character outside the basename earns at most 2 of 2.5. The query suffix
   * that fits in the basename bounds how many can earn the 0.5.
   */
  upperBound(lower: string, base: number): number {
    const { q, m } = this;
    const baseLen = lower.length - base;
    const loose = 0.85 + 0.15 * Math.min(1, m / Math.max(1, baseLen));
    let k = 0;
    for (let i = lower.length - 1, j = m - 1; j >= 0 && i >= base; j--, k++) {
      i = lower.lastIndexOf(q[j], i);
      if (i < base) break;
      i--;
    }
    if (k === m) return loose;
    return 0.85 * ((2.5 * k + 2 * (m - k)) / (2.5 * m)) + 0.15 * Math.min(1, m / lower.length);
  }

  /**
   * Best score in [0, 1] of a path holding the query as a subsequence; fills `best`.
   * `orig` is the path as stored (for camelCase humps), `lower` its lower-case
   * form, `base` the index where the basename starts.
   */
  score(orig: string, lower: string, base: number): number {
    const { q, m, a, b } = this;
    this.top = -1;
    // The tightest window after the leftmost match, and the rightmost match;
    // inside each, both the leftmost and the rightmost greedy placements.
    if (forward(lower, q, 0, a) && backward(lower, q, a[m - 1], b)) this.window(orig, lower, base);
    if (backward(lower, q, lower.length - 1, b)) this.window(orig, lower, base);
    // As a substring: first and last occurrence, and a basename prefix when there is one.
    const first = lower.indexOf(q);
    if (first < 0) return this.top;
    this.considerRun(orig, lower, base, first);
    const last = lower.lastIndexOf(q);
    if (last !== first) this.considerRun(orig, lower, base, last);
    if (base !== first && base !== last && lower.startsWith(q, base)) this.considerRun(orig, lower, base, base);
    return this.top;
  }

  private top = -1;

  /** `b` holds a rightmost placement; also tries the leftmost one from its start. */
  private window(orig: string, lower: string, base: number): void {
    this.consider(orig, lower, base, this.b);
    if (forward(lower, this.q, this.b[0], this.a)) this.consider(orig, lower, base, this.a);
  }

  private considerRun(orig: string, lower: string, base: number, at: number): void {
    const a = this.a;
    for (let j = 0; j < this.m; j++) a[j] = at + j;
    this.consider(orig, lower, base, a);
  }

  private consider(orig: string, lower: string, base: number, pos: Int32Array): void {
    const s = this.rate(orig, lower, base, pos);
    if (s > this.top) {
      this.top = s;
      this.best.set(pos);
    }
  }

  private rate(orig: string, lower: string, base: number, pos: Int32Array): number {
    const m = this.m;
    let earned = 0;
    for (let j = 0; j < m; j++) {
      const p = pos[j];
      let s = 1;
      if (j > 0 && pos[j - 1] === p - 1) s += 1;
      else if (boundary(orig, lower, p)) s += j === 0 ? 1 : 0.8;
      if (p >= base) s += 0.5;
      earned += s;
    }
    const quality = earned / (2.5 * m);
    const span = pos[0] >= base ? lower.length - base : lower.length;
    const coverage = Math.min(1, m / span);
    return Math.round((0.85 * quality + 0.15 * coverage) * 10_000) / 10_000;
  }
}

function boundary(orig: string, lower: string, p: number): boolean {
  if (p === 0) return true;
  const before = lower.charCodeAt(p - 1);
  // / \ _ - . space
  if (before === 47 || before === 92 || before === 95 || before === 45 || before === 46 || before === 32) return true;
  // camelCase hump: lower-case letter followed by an upper-case one.
  const prev = orig.charCodeAt(p - 1);
  const cur = orig.charCodeAt(p);
  return prev >= 97 && prev <= 122 && cur >= 65 && cur <= 90;
}

/** Greedy leftmost match of `q` starting at `from`; fills `out`. */
function forward(s: string, q: string, from: number, out: Int32Array): boolean {
  let i = from;
  for (let j = 0; j < q.length; j++) {
    i = s.indexOf(q[j], i);
    if (i < 0) return false;
    out[j] = i++;
  }
  return true;
}

/** Greedy rightmost match of `q` ending at or before `to`; fills `out`. */
function backward(s: string, q: string, to: number, out: Int32Array): boolean {
  let i = to;
  for (let j = q.length - 1; j >= 0; j--) {
    if (i < 0) return false;
    i = s.lastIndexOf(q[j], i);
    if (i < 0) return false;
    out[j] = i--;
  }
  return true;
}

/** JavaScript string indices -> Unicode code point indices (differ only past astral characters); one pass over `s`. */
export function toCodePointIndices(s: string, positions: ArrayLike<number>): number[] {
  const out = Array.from(positions);
  if (!/[\uD800-\uDBFF]/.test(s)) return out;
  // Code points before each UTF-16 index: low surrogates of a pair do not count.
  const before = new Int32Array(s.length + 1);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const low = c >= 0xdc00 && c <= 0xdfff && i > 0 && s.charCodeAt(i - 1) >= 0xd800 && s.charCodeAt(i - 1) <= 0xdbff;
    before[i + 1] = before[i] + (low ? 0 : 1);
  }
  return out.map((p) => before[Math.max(0, Math.min(p, s.length))]);
}
