import type { Postings } from './postings.ts';
import type { Found, SearchBudgets } from './types.ts';

/** What a terms query reads of the index. */
export interface TermsCorpus {
  readonly postings: Postings;
  readonly budgets: SearchBudgets;
  /** Live documents (the idf's N). */
  readonly live: number;
  now(): number;
}

/** A term's weight: rarer terms say more. */
function idf(c: TermsCorpus, df: number): number {
  return Math.log(1 + (c.live + 1) / (df + 0.5));
}

/** Documents holding every term (a merge of their postings, shortest first), each scored by the terms' idf. */
export function matchAll(c: TermsCorpus, needles: string[], passes: (doc: number) => boolean, started: number): Found {
  const { postings, budgets } = c;
  const ids = needles.map((t) => postings.id(t));
  const found: Found['found'] = [];
  if (ids.some((t) => t === undefined || !postings.df(t))) return { found };
  const sorted = (ids as number[]).map((t) => postings.cursor(t)).sort((a, b) => a.length - b.length);
  const score = sorted.reduce((n, cur) => n + idf(c, cur.length), 0);
  // The other lists' current ids (-1 before their first).
  const heads = sorted.map(() => -1);
  let walked = 0;
  const [first, ...rest] = sorted;
  outer: for (let doc = first.next(); doc >= 0; doc = first.next()) {
    walked += 1;
    if (walked > budgets.postingsBudget) return { found, incomplete: 'postings_budget' };
    if ((walked & 4095) === 0 && c.now() - started >= budgets.deadlineMs) return { found, incomplete: 'deadline' };
    for (let k = 0; k < rest.length; k++) {
      // Read forward to the first id >= doc (gaps have no random access); counted as the galloping search
      // over an array it replaces would be: log2 of the distance.
      let h = heads[k + 1];
      let skipped = 0;
      while (h < doc) {
        h = rest[k].next();
        skipped += 1;
        if (h < 0) break outer;
      }
      heads[k + 1] = h;
      walked += Math.max(1, Math.ceil(Math.log2(skipped + 1)));
      if (h !== doc) continue outer;
    }
    if (!passes(doc)) continue;
    found.push({ doc, score });
    if (found.length >= budgets.candidateCap) return { found, incomplete: 'candidate_cap' };
  }
  return { found };
}

/** Documents holding any term, scored by the sum of their terms' idf; rarest terms walked first, newest first. */
export function matchAny(c: TermsCorpus, needles: string[], passes: (doc: number) => boolean, started: number): Found {
  const { postings, budgets } = c;
  const scores = new Map<number, number>();
  let walked = 0;
  let incomplete: Found['incomplete'];
  // Rarest terms first: under a budget the most telling terms are the ones walked.
  const ids = needles.map((t) => postings.id(t)).filter((t): t is number => t !== undefined && postings.df(t) > 0)
    .sort((a, b) => postings.df(a) - postings.df(b));
  scan: for (const t of ids) {
    const w = idf(c, postings.df(t));
    // Newest first: decoded (forward) into the scratch array, then walked backwards.
    const l = postings.decode(t);
    for (let i = l.length - 1; i >= 0; i--) {
      walked += 1;
      if (walked > budgets.postingsBudget) {
        incomplete = 'postings_budget';
        break scan;
      }
      if ((walked & 4095) === 0 && c.now() - started >= budgets.deadlineMs) {
        incomplete = 'deadline';
        break scan;
      }
      const doc = l[i];
      const prev = scores.get(doc);
      if (prev !== undefined) {
        scores.set(doc, prev + w);
        continue;
      }
      if (scores.size >= budgets.candidateCap) {
        incomplete = 'candidate_cap';
        continue;
      }
      if (passes(doc)) scores.set(doc, w);
    }
  }
  return { found: [...scores].map(([doc, score]) => ({ doc, score })), incomplete };
}
