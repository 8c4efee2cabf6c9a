import test, { type ExecutionContext } from 'ava';
import { searchIndex } from '../../src/fs/search/search.ts';
import { buildFileIndex } from '../../src/fs/search/file-index.ts';
import { toCodePointIndices } from '../../src/fs/search/fuzzy.ts';
import { scratchDir, writeFiles } from '../helpers/fs.ts';

async function root(t: ExecutionContext): Promise<string> {
  const dir = await scratchDir(t, 'svc-code-linear-');
  await writeFiles(dir, ['src/a.ts', 'src/b.ts', 'docs/readme.md', 'aaaa/aaaa/aaaa.txt']);
  return dir;
}

test('the matcher is linear in the query: a 1,000,000-character query (past any HTTP bound) is answered, not ground through', async (t) => {
  const index = await buildFileIndex(await root(t), true, Date.now());
  // The prefilter used to OR the mask of every query suffix (quadratic): 1e6 characters never returned.
  for (const query of ['a'.repeat(1_000_000), `${'a'.repeat(500_000)}/${'b'.repeat(500_000)}`]) {
    const r = searchIndex(index, { query, limit: 50, mode: 'search' });
    t.deepEqual(r.items, []);
    t.is(searchIndex(index, { query, limit: 50, mode: 'suggest' }).items.length, 0);
  }
  t.deepEqual(searchIndex(index, { query: 'aaaa', limit: 50, mode: 'search' }).items[0].path, 'aaaa');
});

test('match positions in code points are computed in one pass and agree with the spread definition', (t) => {
  const s = `😀a${'😀b'.repeat(2000)}c`;
  const positions = Array.from({ length: s.length + 1 }, (_, i) => i);
  t.deepEqual(toCodePointIndices(s, positions), positions.map((p) => [...s.slice(0, p)].length));
});
