import { charBit, type FileIndex } from './file-index.ts';

/**
 * Which index entries hold the query as a (case-insensitive) subsequence,
 * without scanning every full path: the leftmost greedy match is optimal for
 * that question, so what a directory path consumes of the query is computed
 * once per directory and each file only matches the rest in its basename,
 * after a character-mask test that rejects most files in one AND.
 */
export class Prefilter {
  private readonly m: number;
  /** Per directory: query characters consumed by `dir/`. */
  private readonly after: Int32Array;
  /** Per directory: query characters consumed by `dir`. */
  private readonly self: Int32Array;
  /** [j] = charMask of the query from j on. */
  private readonly suffixMask: Uint32Array;

  constructor(private readonly index: FileIndex, private readonly q: string) {
    const m = (this.m = q.length);
    this.suffixMask = new Uint32Array(m + 1);
    // One character per step: the mask of q[j..] is q[j]'s bit plus the mask of q[j+1..] (linear in the query).
    for (let j = m - 1; j >= 0; j--) this.suffixMask[j] = (this.suffixMask[j + 1] | charBit(q.charCodeAt(j))) >>> 0;
    this.after = new Int32Array(index.dirCount);
    this.self = new Int32Array(index.dirCount);
    // Directories are sorted, so a parent is always computed before its children.
    for (let d = 0; d < index.dirCount; d++) {
      const p = index.parent[d];
      const j = this.consume(index.lower[d], index.base[d], p < 0 ? 0 : this.after[p]);
      this.self[d] = j;
      this.after[d] = j < m && q.charCodeAt(j) === 47 ? j + 1 : j;
    }
  }

  matches(i: number): boolean {
    const { index, m } = this;
    if (i < index.dirCount) return this.self[i] === m;
    const p = index.parent[i];
    const j = p < 0 ? 0 : this.after[p];
    if (j === m) return true;
    // Some needed character is missing from the basename.
    if ((this.suffixMask[j] & ~index.mask[i]) !== 0) return false;
    return this.consume(index.lower[i], index.base[i], j) === m;
  }

  /** Greedy: how far the query gets (from `j`) through `s` from index `from`. */
  private consume(s: string, from: number, j: number): number {
    const { q, m } = this;
    let i = from;
    for (; j < m; j++) {
      i = s.indexOf(q[j], i);
      if (i < 0) return j;
      i++;
    }
    return j;
  }
}
