import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { workerBackend } from '../../src/search/backend.ts';
import type { SearchQuery } from '../../projections/search/engine.ts';

const q = (query: string): SearchQuery => ({ query, mode: 'terms', op: 'AND', sort: 'score', offset: 0, page_size: 50 });
const hits = (r: { page: unknown }) => ((r.page as { hits?: unknown[] }).hits ?? []).length;

test('a worker replaced after a build: searches and ops sent during the replacement reach the new worker after its index is loaded', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-code-recycle-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const backend = workerBackend(undefined, dir, (err) => t.fail(`worker failed: ${err.message}`));
  t.teardown(() => backend.close());
  t.false((await backend.open(false)).restored);
  backend.apply([{ op: 'session', session_id: 's', workspace_id: 'w', title: '', time: 0 }], []);
  backend.apply(Array.from({ length: 300 }, (_, i) => ({ op: 'add' as const, session_id: 's', key: `m${i}`, agent_id: 'main', role: 'user' as const, text: `wombat number ${i}`, time: i })), [['s', 301, 'e']]);
  backend.built();
  await backend.save();
  const before = await backend.search(q('wombat'));
  t.is(before.documents, 300);

  const recycled = backend.recycle();
  // While the old worker ends and the new one starts: a search, then an op, then another search.
  const during = backend.search(q('wombat'));
  backend.apply([{ op: 'add', session_id: 's', key: 'late', agent_id: 'main', role: 'user', text: 'a late okapi', time: 400 }], [['s', 302, 'e']]);
  const late = backend.search(q('okapi'));
  t.true(await recycled);
  t.is(hits(await during), 50);
  t.is((await during).documents, 300);
  t.is(hits(await late), 1);
  t.is((await backend.search(q('wombat'))).documents, 301);
});

test('a close while the worker is replaced answers what waited and starts no worker', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-code-recycle-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const backend = workerBackend(undefined, dir, (err) => t.fail(`worker failed: ${err.message}`));
  t.false((await backend.open(false)).restored);
  backend.apply([{ op: 'add', session_id: 's', key: 'm', agent_id: 'main', role: 'user', text: 'a wombat', time: 1 }], [['s', 2, 'e']]);
  backend.built();
  await backend.save();
  const recycled = backend.recycle();
  const during = backend.search(q('wombat'));
  // Ops arriving during the replacement are parked, not held for a worker that would start before the open.
  backend.apply([{ op: 'session', session_id: 's', workspace_id: 'w', title: '', time: 0 }], []);
  await backend.close();
  await t.throwsAsync(during, { message: 'search worker stopped' });
  t.true(await recycled);
  t.deepEqual(await backend.stats(), {}, 'no worker started after the close');
});
