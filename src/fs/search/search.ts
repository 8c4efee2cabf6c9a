import { FuzzyQuery, toCodePointIndices } from './fuzzy.ts';
import { globFilter } from './globs.ts';
import type { FileIndex } from './file-index.ts';
import { Prefilter } from './prefilter.ts';
import { TopK } from './topk.ts';

export interface SearchHit {
  path: string;
  name: string;
  kind: 'file' | 'directory';
  score: number;
  match_positions: number[];
}

export interface SearchResult {
  items: SearchHit[];
  truncated: boolean;
}

export interface SearchOptions {
  query: string;
  limit: number;
  include_globs?: string[];
  exclude_globs?: string[];
  /**
   * `search`: plain fuzzy ranking over files and directories, hidden entries included.
   * `suggest` (file-mention completion): hidden entries only with `showHidden`;
   * basename prefixes (or, for a query containing `/`, path prefixes) are lifted
   * into the upper half of the range and directories are scaled down by
   * DIRECTORY_FACTOR, so the file being typed comes first.
   */
  mode: 'search' | 'suggest';
  showHidden?: boolean;
}

export const DIRECTORY_FACTOR = 0.85;

interface Candidate {
  i: number;
  score: number;
  path: string;
}

/** Fuzzy search over a file index; see fuzzy.ts for the scoring. */
export function searchIndex(index: FileIndex, opts: SearchOptions): SearchResult {
  const keep = globFilter(opts.include_globs, opts.exclude_globs);
  const skipHidden = opts.mode === 'suggest' && !opts.showHidden;
  const fq = new FuzzyQuery(opts.query);
  const top = new TopK<Candidate>(opts.limit);
  const { paths, lower, base, hidden, dirCount } = index;
  const pre = fq.m ? new Prefilter(index, fq.q) : null;
  let matched = 0;
  for (let i = 0; i < paths.length; i++) {
    if (skipHidden && hidden[i]) continue;
    if (pre ? !pre.matches(i) : base[i] !== 0) continue;
    if (keep && !keep(paths[i])) continue;
    matched++;
    // Scoring is the costly part: skip candidates whose best possible score cannot make the cut
    // (the margin covers the 4-decimal rounding, under which a tie could still win on its path).
    if (fq.m > 0 && ceiling(fq, opts.mode, lower[i], base[i]) + 1e-4 < top.floor()) continue;
    const isDir = i < dirCount;
    const score = fq.m === 0 ? emptyQueryScore(opts.mode, isDir) : rank(fq, opts.mode, paths[i], lower[i], base[i], isDir);
    if (top.wouldKeep(score, paths[i])) top.offer({ i, score, path: paths[i] });
  }
  const items = top.sorted().map((c) => toHit(index, fq, opts.mode, c));
  return { items, truncated: matched > opts.limit || index.capped };
}

/** No score `rank` can give is above this (suggest's prefix lift included). */
function ceiling(fq: FuzzyQuery, mode: SearchOptions['mode'], low: string, b: number): number {
  const ub = fq.upperBound(low, b);
  return mode === 'suggest' && hasPrefix(fq, low, b) ? 0.5 + 0.5 * ub : ub;
}

function hasPrefix(fq: FuzzyQuery, low: string, b: number): boolean {
  return fq.q.includes('/') ? low.startsWith(fq.q) : low.startsWith(fq.q, b);
}

/** An empty query lists the top level, every entry scored alike (suggest still puts files first). */
function emptyQueryScore(mode: SearchOptions['mode'], isDir: boolean): number {
  return mode === 'suggest' && isDir ? DIRECTORY_FACTOR : 1;
}

function rank(fq: FuzzyQuery, mode: SearchOptions['mode'], path: string, low: string, b: number, isDir: boolean): number {
  const s = fq.score(path, low, b);
  if (mode === 'search') return s;
  const lifted = hasPrefix(fq, low, b) ? 0.5 + 0.5 * s : s;
  return Math.round((isDir ? lifted * DIRECTORY_FACTOR : lifted) * 10_000) / 10_000;
}

function toHit(index: FileIndex, fq: FuzzyQuery, mode: SearchOptions['mode'], c: Candidate): SearchHit {
  const p = index.paths[c.i];
  let positions: number[] = [];
  if (fq.m > 0) {
    fq.score(p, index.lower[c.i], index.base[c.i]);
    positions = toCodePointIndices(p, fq.best);
    if (mode === 'suggest') positions = preferPrefix(fq, index.lower[c.i], index.base[c.i], positions);
  }
  return { path: p, name: p.slice(index.base[c.i]), kind: c.i < index.dirCount ? 'directory' : 'file', score: c.score, match_positions: positions };
}

/** Suggest ranks by the prefix it lifted, so its highlighted characters are that prefix. */
function preferPrefix(fq: FuzzyQuery, low: string, b: number, positions: number[]): number[] {
  if (!hasPrefix(fq, low, b) || /[\uD800-\uDBFF]/.test(low)) return positions;
  const at = fq.q.includes('/') ? 0 : b;
  return Array.from({ length: fq.m }, (_, j) => at + j);
}
