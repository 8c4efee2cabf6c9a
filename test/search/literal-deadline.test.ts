import test from 'ava';
import { SearchEngine, type SearchQuery } from '../../projections/search/engine.ts';

// A literal needle that is not a whole word (one word: it may be part of a longer one) is compared with every
// term of the index to pick the documents to read; that walk must stop at the query's deadline.

test('literal mode: the walk over the terms for a partial word stops at the deadline and answers incomplete', (t) => {
  let late = false;
  let reads = 0;
  // The clock stands still, or (late) is past the deadline at every reading after the query's start.
  const engine = new SearchEngine({ candidateCap: 1_000_000, postingsBudget: 100_000_000, deadlineMs: 50 }, undefined, () => (late && reads++ > 0 ? 1_000 : 0));
  engine.apply({ op: 'session', session_id: 's', workspace_id: 'w', title: '', time: 0 });
  const TERMS = 60_000;
  for (let i = 0; i < TERMS; i += 20) {
    engine.apply({ op: 'add', session_id: 's', key: `m${i}`, agent_id: 'main', role: 'user', text: Array.from({ length: 20 }, (_, k) => `w${i + k}x`).join(' '), time: i });
  }
  const q: SearchQuery = { query: '1x', mode: 'literal', op: 'AND', sort: 'score', offset: 0, page_size: 5 };
  const full = engine.search(q);
  if ('error' in full) return t.fail(full.error);
  t.is(full.incomplete, undefined);
  t.is(full.hits.length, 5);

  // Count the terms looked at (white box: the engine's term list).
  const inner = engine.postings as unknown as { list: string[] };
  let looked = 0;
  inner.list = new Proxy(inner.list, {
    get(target, prop, receiver) {
      if (typeof prop === 'string' && /^\d+$/.test(prop)) looked += 1;
      return Reflect.get(target, prop, receiver);
    },
  });
  late = true;
  const cut = engine.search(q);
  if ('error' in cut) return t.fail(cut.error);
  t.is(cut.incomplete, 'deadline');
  t.true(looked > 0, 'the terms were walked');
  t.true(looked <= 2048, `looked at ${looked} of ${TERMS} terms`);
});
