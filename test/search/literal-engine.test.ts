import test from 'ava';
import { prng } from '../../fixtures/prng.ts';
import { SearchEngine, type SearchQuery } from '../../projections/search/engine.ts';

const WORDS = ['Alpha', 'beta', 'gamma_ray', 'delta9', 'x', 'EPSILON', 'zeta-zeta', '東京都庁', '世界', '語', 'long'.repeat(20), 'a.b/c', 'İstanbul', 'ünïcode', '  ', '->', 'K'];

test('literal mode finds exactly the documents holding the substring, newest first, whether it reads candidates from the terms or scans', (t) => {
  const rand = prng(7);
  const engine = new SearchEngine({ candidateCap: 1_000_000, postingsBudget: 100_000_000, deadlineMs: 60_000 });
  const texts: Array<{ text: string; time: number }> = [];
  engine.apply({ op: 'session', session_id: 's', workspace_id: 'w', title: '', time: 0 });
  for (let i = 0; i < 600; i++) {
    const text = Array.from({ length: 3 + Math.floor(rand() * 8) }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(rand() < 0.5 ? ' ' : ', ');
    const time = Math.floor(rand() * 1000) * 1000;
    texts.push({ text, time });
    engine.apply({ op: 'add', session_id: 's', key: `m${i}`, agent_id: 'main', role: 'user', text, time });
  }
  const all = (query: string) => {
    const out: number[] = [];
    for (let offset = 0; ; offset += 50) {
      const q: SearchQuery = { query, mode: 'literal', op: 'AND', sort: 'score', offset, page_size: 50 };
      const page = engine.search(q);
      if ('error' in page) throw new Error(page.error);
      t.is(page.incomplete, undefined);
      out.push(...page.hits.map((h) => h.time));
      if (!page.has_more) return out;
    }
  };
  let checked = 0;
  for (let k = 0; k < 300; k++) {
    const src = texts[Math.floor(rand() * texts.length)].text;
    const from = Math.floor(rand() * src.length);
    const needle = src.slice(from, from + 1 + Math.floor(rand() * 14));
    if (!needle.length) continue;
    const want = texts.filter((d) => d.text.includes(needle)).map((d) => d.time).sort((a, b) => b - a);
    t.deepEqual(all(needle), want, JSON.stringify(needle));
    checked += 1;
  }
  t.true(checked > 250);
  t.deepEqual(all('not in any text'), []);
});
