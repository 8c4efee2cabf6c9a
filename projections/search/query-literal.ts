import type { Postings } from './postings.ts';
import { scanBackwards, type TextStore } from './texts.ts';
import { fragmentMatches, literalFragments } from './tokenize.ts';
import { BLOCK_BITS, type Found, type SearchBudgets } from './types.ts';

const EMPTY = new Uint32Array(0);
/** Literal mode reads only the documents its fragments' terms point to, unless that is more postings than this. */
const PREFILTER_MAX = 2_000_000;

/** What a literal query reads of the index. */
export interface LiteralCorpus {
  readonly postings: Postings;
  readonly texts: TextStore;
  readonly budgets: SearchBudgets;
  /** Documents ever added (ids 0 to docCount - 1). */
  readonly docCount: number;
  /** Per document, its time. */
  readonly times: Float64Array;
  /** Per block of 1,024 documents, the newest time among the documents up to its end. */
  newestUpTo(): Float64Array;
  /** Start of document `d`'s text in the store, and its end. */
  span(d: number): [number, number];
  /** The document whose bytes hold store offset `at`. */
  docAt(at: number): number;
  now(): number;
}

/** The `size` newest times seen, as a min-heap: its root is the bar every earlier document must clear. */
class NewestTimes {
  private readonly heap: Float64Array;
  private size = 0;
  constructor(private readonly capacity: number) {
    this.heap = new Float64Array(capacity);
  }

  get full(): boolean {
    return this.size === this.capacity;
  }

  get bar(): number {
    return this.heap[0];
  }

  keep(t: number): void {
    const heap = this.heap;
    const n = this.capacity;
    if (this.size < n) {
      let i = this.size++;
      while (i > 0 && heap[(i - 1) >> 1] > t) {
        heap[i] = heap[(i - 1) >> 1];
        i = (i - 1) >> 1;
      }
      heap[i] = t;
    } else if (t > heap[0]) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const c = l + 1 < n && heap[l + 1] < heap[l] ? l + 1 : l;
        if (heap[c] >= t) break;
        heap[i] = heap[c];
        i = c;
      }
      heap[i] = t;
    }
  }
}

/**
 * Exact substring, newest first by the documents' times. The store is walked backwards (documents are
 * numbered as their events are applied, mostly in time order), one match per document, and the walk stops
 * once `enough` matches are at least as new as every document before the walk's position (per block of
 * 1,024 documents, their newest time): documents out of time order (a build from the journal walks it
 * stream by stream, an imported session) are still ranked by time.
 */
export function literal(c: LiteralCorpus, query: string, passes: (doc: number) => boolean, started: number, enough: number): Found {
  const found: Found['found'] = [];
  if (!c.docCount) return { found };
  const needle = Buffer.from(query, 'utf8');
  const bound = c.newestUpTo();
  const newest = new NewestTimes(enough);
  const settled = (doc: number) => newest.full && doc > 0 && newest.bar >= bound[(doc - 1) >> BLOCK_BITS];
  const late = () => c.now() - started >= c.budgets.deadlineMs;
  const take = (d: number): Found['incomplete'] | 'settled' | undefined => {
    found.push({ doc: d, score: 1 });
    newest.keep(c.times[d]);
    if (settled(d)) return 'settled';
    return found.length >= c.budgets.candidateCap ? 'candidate_cap' : undefined;
  };
  const candidates = literalCandidates(c, query, started);
  if (candidates === 'deadline') return { found, incomplete: 'deadline' };
  let incomplete: Found['incomplete'];
  if (candidates) {
    // Newest documents first (mostly time order), each read and checked, until the page is settled.
    let steps = 0;
    for (let i = candidates.length - 1; i >= 0; i--) {
      const d = candidates[i];
      if ((++steps & 255) === 0 && late()) {
        incomplete = 'deadline';
        break;
      }
      if (!passes(d)) continue;
      const [start, end] = c.span(d);
      if (end - start < needle.length || c.texts.view(start, end - start).indexOf(needle) < 0) continue;
      const why = take(d);
      if (why === 'settled') break;
      if (why) {
        incomplete = why;
        break;
      }
    }
  } else {
    incomplete = scanStore(c, needle, passes, take, late);
  }
  // A deadline set below one scan's time still cuts it (the checks run every 1,024 matches and per chunk).
  if (!incomplete && late()) incomplete = 'deadline';
  return { found, incomplete };
}

/** No fragment to go by (or too common ones): every match in the store, last bytes first, one per document. */
function scanStore(
  c: LiteralCorpus, needle: Buffer, passes: (doc: number) => boolean,
  take: (d: number) => Found['incomplete'] | 'settled' | undefined, late: () => boolean,
): Found['incomplete'] {
  let incomplete: Found['incomplete'];
  let steps = 0;
  scanBackwards(c.texts, needle, (at) => {
    const d = c.docAt(at);
    const [start, end] = c.span(d);
    let next = at - 1;
    if (at + needle.length <= end) {
      if (passes(d)) {
        const why = take(d);
        if (why === 'settled') return -1;
        if (why) {
          incomplete = why;
          return -1;
        }
      }
      next = start - needle.length;
      if (next < 0) return -1;
    }
    if ((++steps & 1023) === 0 && late()) {
      incomplete = 'deadline';
      return -1;
    }
    return next;
  }, () => {
    if (!late()) return false;
    incomplete = 'deadline';
    return true;
  });
  return incomplete;
}

/**
 * The documents (ascending) holding the terms the needle's fragments point to, from the one or two cheapest
 * fragments; undefined when the needle has none, or even the cheapest walks more than PREFILTER_MAX postings
 * (then the store is scanned); 'deadline' when the query's time ran out while they were gathered (the walk over
 * every term for a fragment that is not a whole word, the marking of their postings: checked every 1,024 steps).
 */
function literalCandidates(c: LiteralCorpus, needle: string, started: number): Uint32Array | undefined | 'deadline' {
  const fragments = literalFragments(needle);
  if (!fragments.length) return undefined;
  const { postings } = c;
  // The clock is read once per 1,024 units of work (a term compared, a posting marked).
  let work = 0;
  let nextCheck = 1024;
  const late = (cost = 1) => {
    work += cost;
    if (work < nextCheck) return false;
    nextCheck = work + 1024;
    return c.now() - started >= c.budgets.deadlineMs;
  };
  const sets: Array<{ ids: number[]; total: number }> = [];
  for (const f of fragments) {
    const ids: number[] = [];
    let total = 0;
    if (f.kind === 'exact') {
      const t = postings.id(f.text);
      if (t !== undefined) {
        ids.push(t);
        total = postings.df(t);
      }
    } else {
      const list = postings.terms;
      for (let t = 0; t < list.length; t++) {
        if (late()) return 'deadline';
        if (fragmentMatches(f, list[t])) {
          ids.push(t);
          total += postings.df(t);
        }
      }
    }
    sets.push({ ids, total });
  }
  sets.sort((a, b) => a.total - b.total);
  if (sets[0].total === 0) return EMPTY;
  const limit = Math.min(PREFILTER_MAX, c.budgets.postingsBudget);
  if (sets[0].total > limit) return undefined;
  const used = sets.length > 1 && sets[1].total <= limit ? sets.slice(0, 2) : sets.slice(0, 1);
  const n = c.docCount;
  const mark = new Uint8Array(n);
  for (let k = 0; k < used.length; k++) {
    for (const t of used[k].ids) {
      const cur = postings.cursor(t);
      if (late(cur.length)) return 'deadline';
      for (let d = cur.next(); d >= 0; d = cur.next()) if (mark[d] === k) mark[d] = k + 1;
    }
  }
  let count = 0;
  for (let d = 0; d < n; d++) if (mark[d] === used.length) count += 1;
  const out = new Uint32Array(count);
  for (let d = 0, i = 0; d < n; d++) if (mark[d] === used.length) out[i++] = d;
  return out;
}
