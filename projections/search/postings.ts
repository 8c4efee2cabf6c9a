import { roomy } from './columns.ts';
import { putVarint, sumVarints, VarintReader, varintSize } from './varint.ts';

/** The postings as a snapshot stores them (src/search/snapshot.ts). */
export interface PostingsState {
  terms: string[];
  /** Term t's postings are bytes postings[postingsStart[t], postingsStart[t + 1]) (n + 1 entries). */
  postingsStart: Uint32Array;
  /** Documents per term (n entries). */
  postingsCount: Uint32Array;
  /** Per term, its ascending document ids as varint gaps. */
  postings: Uint8Array;
}

/**
 * A term's documents, ascending, read forward once: the frozen slice's gaps (the first is the first id itself),
 * then the fresh ids (all newer than the frozen ones).
 */
export class Cursor {
  private doc = 0;
  private fi = 0;
  private readonly gaps: VarintReader;

  constructor(
    bytes: Uint8Array,
    at: number,
    end: number,
    private readonly fresh: number[] | undefined,
    /** How many documents it gives in all. */
    readonly length: number,
  ) {
    this.gaps = new VarintReader(bytes, at, end);
  }

  /** The next document id, -1 past the last. */
  next(): number {
    if (!this.gaps.done) return (this.doc += this.gaps.read());
    const f = this.fresh;
    return f !== undefined && this.fi < f.length ? f[this.fi++] : -1;
  }
}

/**
 * Interned terms and, per term, its ascending document ids. The frozen postings are one Uint8Array for every
 * term (a term's documents are a slice of it, the gaps between its ids as varints); the postings added since it
 * was last rewritten are held per term in small arrays and merged in when they grow (or at a snapshot): no
 * per-term buffers that grow by copying.
 */
export class Postings {
  private list: string[] = [];
  private readonly idx = new Map<string, number>();
  private start: Uint32Array = new Uint32Array(1);
  private count: Uint32Array = new Uint32Array(0);
  private bytes: Uint8Array = new Uint8Array(0);
  /** The frozen postings' total count. */
  private frozenCount = 0;
  private readonly fresh = new Map<number, number[]>();
  private freshCount = 0;
  /** `decode`'s list, reused across queries (grown like the other arrays). */
  private scratch: Uint32Array = new Uint32Array(1024);

  static restore(s: PostingsState): Postings {
    const p = new Postings();
    p.list = s.terms;
    s.terms.forEach((t, i) => p.idx.set(t, i));
    p.start = s.postingsStart;
    p.count = s.postingsCount;
    p.bytes = s.postings;
    for (let t = 0; t < s.postingsCount.length; t++) p.frozenCount += s.postingsCount[t];
    return p;
  }

  /** The postings for a snapshot (the fresh ones merged first; the arrays are the index's own, not copies). */
  state(): PostingsState {
    this.freeze();
    return { terms: this.list, postingsStart: this.start, postingsCount: this.count, postings: this.bytes };
  }

  /** Every interned term, by id. */
  get terms(): readonly string[] {
    return this.list;
  }

  /** The id of `term`, undefined when no document ever held it. */
  id(term: string): number | undefined {
    return this.idx.get(term);
  }

  /** Posts document `doc` (newer than every document posted before) under each of its terms. */
  addDocument(doc: number, terms: Iterable<string>): void {
    for (const term of terms) {
      let t = this.idx.get(term);
      if (t === undefined) {
        t = this.list.length;
        this.list.push(term);
        this.idx.set(term, t);
      }
      const f = this.fresh.get(t);
      if (f) f.push(doc);
      else this.fresh.set(t, [doc]);
      this.freshCount += 1;
    }
    // Merged when they reach a quarter of the frozen postings (so a build copies each posting a few times), at most 1M.
    if (this.freshCount >= Math.min(1 << 20, Math.max(1 << 16, this.frozenCount >> 2))) this.freeze();
  }

  /** Term t's document count. */
  df(t: number): number {
    return (t < this.count.length ? this.count[t] : 0) + (this.fresh.get(t)?.length ?? 0);
  }

  /** Term t's documents, ascending, as a cursor. */
  cursor(t: number): Cursor {
    const frozen = t + 1 < this.start.length;
    return new Cursor(this.bytes, frozen ? this.start[t] : 0, frozen ? this.start[t + 1] : 0, this.fresh.get(t), this.df(t));
  }

  /** Term t's documents, ascending, decoded into a scratch array (valid until the next call). */
  decode(t: number): Uint32Array {
    const c = this.cursor(t);
    if (this.scratch.length < c.length) this.scratch = roomy(Uint32Array, 4, Math.max(c.length, this.scratch.length * 2));
    const out = this.scratch.subarray(0, c.length);
    for (let i = 0; i < out.length; i++) out[i] = c.next();
    return out;
  }

  /** Sizes for the bench's breakdown. */
  stats(): { terms: number; postings: number; postings_bytes: number; fresh_postings: number } {
    return {
      terms: this.list.length, postings: this.frozenCount + this.freshCount,
      postings_bytes: this.bytes.byteLength + this.start.byteLength + this.count.byteLength, fresh_postings: this.freshCount,
    };
  }

  /** Rewrites the frozen postings with the fresh ones appended to each term's slice (coded as gaps from its last id). */
  freeze(): void {
    const n = this.list.length;
    const oldN = this.start.length - 1;
    if (!this.freshCount && oldN === n) return;
    const { start, count, last } = this.layout(n, oldN);
    const next = roomy(Uint8Array, 1, start[n]).subarray(0, start[n]);
    const old = this.start;
    for (let t = 0; t < n; t++) {
      let at = start[t];
      if (t < oldN && old[t + 1] > old[t]) {
        next.set(this.bytes.subarray(old[t], old[t + 1]), at);
        at += old[t + 1] - old[t];
      }
      let prev = last[t];
      for (const d of this.fresh.get(t) ?? []) {
        at = putVarint(next, at, d - prev);
        prev = d;
      }
    }
    this.start = start;
    this.count = count;
    this.bytes = next;
    this.frozenCount += this.freshCount;
    this.fresh.clear();
    this.freshCount = 0;
  }

  /** The merged slices' offsets and counts, and each fresh term's last frozen id (its first fresh gap's base). */
  private layout(n: number, oldN: number) {
    const old = this.start;
    const start = new Uint32Array(n + 1);
    const count = new Uint32Array(n);
    const last = new Float64Array(n);
    for (let t = 0; t < n; t++) {
      const from = t < oldN ? old[t] : 0;
      const to = t < oldN ? old[t + 1] : 0;
      let size = to - from;
      count[t] = t < oldN ? this.count[t] : 0;
      const f = this.fresh.get(t);
      if (f) {
        let prev = to > from ? sumVarints(this.bytes, from, to) : 0;
        last[t] = prev;
        for (const d of f) {
          size += varintSize(d - prev);
          prev = d;
        }
        count[t] += f.length;
      }
      start[t + 1] = start[t] + size;
    }
    return { start, count, last };
  }
}
