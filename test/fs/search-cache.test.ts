import test from 'ava';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { FileIndexCache } from '../../src/fs/search/cache.ts';
import { scratchDir, writeFiles } from '../helpers/fs.ts';
import { until } from '../helpers/wait.ts';

async function root(t: any, files: string[]): Promise<string> {
  const dir = await scratchDir(t, 'svc-code-index-');
  await writeFiles(dir, files);
  return dir;
}

function cache(t: any, clock: { ms: number }, maxEntries = 4) {
  const c = new FileIndexCache({ freshMs: 1_000, staleMs: 10_000, maxEntries, now: () => clock.ms });
  t.teardown(() => c.clear());
  return c;
}

test('one build for concurrent requests; directories derived from files, parents first', async (t) => {
  const dir = await root(t, ['a/b/c.txt', 'a/d.txt', 'e.txt', '.hidden/f.txt']);
  const c = cache(t, { ms: 0 });
  const all = await Promise.all(Array.from({ length: 5 }, () => c.get(dir, true)));
  t.true(all.every((x) => x === all[0]), 'built once');
  const idx = all[0];
  t.deepEqual(idx.paths.slice(0, idx.dirCount), ['.hidden', 'a', 'a/b']);
  t.deepEqual(idx.paths.slice(idx.dirCount).sort(), ['.hidden/f.txt', 'a/b/c.txt', 'a/d.txt', 'e.txt']);
  const at = (p: string) => idx.paths.indexOf(p);
  t.is(idx.parent[at('a/b/c.txt')], at('a/b'));
  t.is(idx.parent[at('a/b')], at('a'));
  t.is(idx.parent[at('e.txt')], -1);
  t.is(idx.hidden[at('.hidden/f.txt')], 1);
  t.is(idx.hidden[at('a/d.txt')], 0);
});

test('fresh, then stale-while-revalidate, then rebuilt before answering', async (t) => {
  const dir = await root(t, ['one.txt']);
  const clock = { ms: 0 };
  const c = cache(t, clock);
  const first = await c.get(dir, true);
  await writeFile(path.join(dir, 'two.txt'), 'x\n');
  clock.ms = 500;
  t.is(await c.get(dir, true), first, 'fresh: served as is');
  clock.ms = 1_500;
  t.is(await c.get(dir, true), first, 'stale: the old index answers at once');
  let next = first;
  await until(async () => (next = await c.get(dir, true)) !== first, 30_000).catch(() => undefined); // the assertion below reports a timeout
  t.not(next, first, 'rebuilt in the background');
  t.true(next.paths.includes('two.txt'));
  await writeFile(path.join(dir, 'three.txt'), 'x\n');
  clock.ms = 60_000;
  const rebuilt = await c.get(dir, true);
  t.true(rebuilt.paths.includes('three.txt'), 'too old: rebuilt before answering');
});

test('follow_gitignore is part of the key; least recently used roots are evicted', async (t) => {
  const dir = await root(t, ['kept.txt', 'skip/x.txt']);
  await writeFile(path.join(dir, '.gitignore'), 'skip/\n');
  const c = cache(t, { ms: 0 }, 2);
  const honoured = await c.get(dir, true);
  const all = await c.get(dir, false);
  t.false(honoured.paths.includes('skip/x.txt'));
  t.true(all.paths.includes('skip/x.txt'));
  const other = await root(t, ['y.txt']);
  await c.get(other, true);
  t.is(await c.get(dir, false), all, 'recently used: kept');
  t.not(await c.get(dir, true), honoured, 'least recently used: evicted and rebuilt');
});
