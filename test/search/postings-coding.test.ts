import test from 'ava';
import { SearchEngine, type SearchQuery } from '../../projections/search/engine.ts';
import { MemoryTexts } from '../../projections/search/texts.ts';

// Postings are per term the gaps between ascending document ids as LEB128 varints (engine.ts): gaps of 1, 2 and 3
// bytes, a merge of fresh postings coded from the last frozen id, and a restore from the state, all answer alike.
const BUDGETS = { candidateCap: 1_000_000, postingsBudget: 100_000_000, deadlineMs: 60_000 };
/** Documents holding `rare`: gaps 1, 127, 128 (two bytes), 16383, 16384 (three bytes) between them. */
const RARE = [0, 1, 128, 256, 16_639, 33_023];

function add(engine: SearchEngine, doc: number, rare: boolean): void {
  const words = [doc % 2 === 0 ? 'common' : 'odd', `w${doc % 97}`, ...(rare ? ['rare'] : [])];
  engine.apply({ op: 'add', session_id: 's', key: `m${doc}`, agent_id: 'main', role: 'user', text: words.join(' '), time: doc });
}

/** Every hit's time (= its document number), oldest first. */
function all(engine: SearchEngine, query: string, extra: Partial<SearchQuery> = {}): number[] {
  const out: number[] = [];
  for (let offset = 0; ; offset += 50) {
    const page = engine.search({ query, mode: 'terms', op: 'AND', sort: 'time_asc', offset, page_size: 50, ...extra });
    if ('error' in page) throw new Error(page.error);
    if (page.incomplete) throw new Error(page.incomplete);
    out.push(...page.hits.map((h) => h.time));
    if (!page.has_more) return out.sort((a, b) => a - b);
  }
}

test('varint-coded postings give every document back across byte widths, merges and a restore', (t) => {
  const texts = new MemoryTexts();
  const engine = new SearchEngine(BUDGETS, texts);
  // The title document is document 0; messages start at 1, so message n is document n + 1 (its time is n).
  engine.apply({ op: 'session', session_id: 's', workspace_id: 'w', title: 'headline', time: -1 });
  const rare = new Set(RARE);
  let doc = 0;
  for (; doc <= 33_023; doc++) add(engine, doc, rare.has(doc));
  engine.freeze();
  // Fresh postings after a merge: coded from the term's last frozen id when merged.
  const later = [33_024, 33_200];
  for (; doc <= 33_300; doc++) add(engine, doc, later.includes(doc));
  const want = [...RARE, ...later];
  t.deepEqual(all(engine, 'rare'), want, 'frozen and fresh');
  t.deepEqual(all(engine, 'rare common'), want.filter((d) => d % 2 === 0), 'AND');
  t.deepEqual(all(engine, 'rare odd'), want.filter((d) => d % 2 === 1), 'AND with the other list');
  t.deepEqual(all(engine, 'rare headline', { op: 'OR' }), [-1, ...want], 'OR');
  t.deepEqual(all(engine, 'rare', { mode: 'literal' }), want, 'literal (its candidates from the postings)');
  engine.freeze();
  t.deepEqual(all(engine, 'rare'), want, 'after a second merge');
  const stats = engine.stats();
  t.is(stats.postings, 33_301 * 2 + want.length + 1, 'three terms per message, one for the title');
  t.true(stats.postings_bytes < stats.postings * 2, `${stats.postings_bytes} bytes for ${stats.postings} postings`);

  const restored = SearchEngine.restore(engine.state(), texts, BUDGETS);
  t.deepEqual(all(restored, 'rare'), want, 'restored');
  t.deepEqual(all(restored, 'rare common'), all(engine, 'rare common'));
  t.is(all(restored, 'common').length, all(engine, 'common').length);
  add(restored, doc, true);
  t.deepEqual(all(restored, 'rare'), [...want, doc], 'a fresh posting on a restored index');
  restored.freeze();
  t.deepEqual(all(restored, 'rare'), [...want, doc], 'merged');
  // Removed documents are tombstones the postings skip, coded or not.
  restored.apply({ op: 'remove', session_id: 's', keys: ['m128', `m${doc}`] });
  t.deepEqual(all(restored, 'rare'), want.filter((d) => d !== 128), 'removed ones skipped');
});
