import test from 'ava';
import { serverFor } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';
import { answers, populate, ready, say, search, T0 } from './helpers.ts';

test('a worker that dies is replaced by an in-process index rebuilt from the journal: same answers, degraded, kept up to date', async (t) => {
  const s = await serverFor(t);
  const { a } = await populate(s);
  await ready(s, { degraded: false });
  t.is(s.search.kind, 'worker');
  const before = await answers(s);
  const token = (await search(s, { query: 'zebra', page_size: 1 })).data.page_token;
  t.truthy(token);

  await s.search.crashWorker();
  await until(() => s.search.kind === 'in-process' || undefined, 30_000, 'fallback in place');
  await ready(s, { degraded: true });
  t.deepEqual(await answers(s), before);
  // The rebuilt index is a new generation: tokens of the dead one are refused.
  t.is((await search(s, { query: 'zebra', page_size: 1, page_token: token })).code, 40001);
  // Events committed after the switch reach the in-process index.
  await say(s, a, 'm6', 'user', 'a wombat joined the migration', 6);
  await until(async () => (await search(s, { query: 'wombat' })).data.items.length === 1 || undefined, 30_000, 'new message indexed');
  const d = (await search(s, { query: 'wombat' })).data;
  t.like(d.items[0], { session_id: a, time: T0 + 6 * 60_000 });
  t.true(d.index_state.degraded);
});

test('[database] search = false: the index runs in the server process from the start, not degraded, and follows commits', async (t) => {
  const s = await serverFor(t, { config: '[database]\nsearch = false\n' });
  t.is(s.search.kind, 'in-process');
  const { b } = await populate(s);
  await ready(s, { degraded: false });
  const worker = await serverFor(t);
  await populate(worker);
  await ready(worker);
  t.deepEqual((await answers(s)).map((x) => ({ ...x, items: x.items.map((i) => i.slice(1)) })), (await answers(worker)).map((x) => ({ ...x, items: x.items.map((i) => i.slice(1)) })));
  await say(s, b, 'm7', 'assistant', 'the okapi is in process', 7);
  await until(async () => (await search(s, { query: 'okapi' })).data.items.length === 1 || undefined, 30_000, 'indexed in process');
  t.is((await search(s, { query: 'okapi' })).data.index_state.degraded, undefined);
  // crash() has no worker to end in process: nothing changes.
  await s.search.crashWorker();
  t.is(s.search.kind, 'in-process');
  t.is((await search(s, { query: 'okapi' })).data.items.length, 1);
});
