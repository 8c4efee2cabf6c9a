import test from 'ava';
import { newSession, serverFor, type TestServer } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';
import { ready, say, search, T0 } from './helpers.ts';

// These tests check the order of a complete page. The walk over 3,000 documents written oldest-last reads them all,
// which on a loaded machine can pass the default 400 ms deadline and answer a partial page (`incomplete: deadline`,
// seen in a run at load 24): a deadline no run reaches keeps the outcome independent of the machine's speed
// (test/search/budgets.test.ts covers the deadline itself). Each test file runs in its own worker.
process.env.SVC_CODE_SEARCH_DEADLINE_MS = '600000';

const times = async (s: TestServer, body: Record<string, unknown>) => {
  const d = (await search(s, { mode: 'literal', ...body })).data;
  if (d.incomplete) throw new Error(`a partial page (incomplete: ${d.incomplete})`);
  return d.items.map((i: any) => (i.time - T0) / 60_000);
};

test('literal mode is newest first by message time, whatever order the events were written in, before and after a restart', async (t) => {
  const s = await serverFor(t);
  // Sessions created in this order (the journal's stream order, which a build from the journal walks) ...
  const [s1, s2, s3] = [await newSession(s), await newSession(s), await newSession(s)];
  // ... their messages written in another order, with times in a third.
  await say(s, s3, 'c', 'user', 'the capybara at minute nine', 9);
  await say(s, s1, 'a', 'user', 'the capybara at minute five', 5);
  await say(s, s2, 'b', 'user', 'the capybara at minute one', 1);
  await say(s, s1, 'a2', 'assistant', 'the capybara at minute seven', 7);
  await ready(s);
  const expected = [9, 7, 5, 1];
  t.deepEqual(await times(s, { query: 'capybara' }), expected);
  const paged: number[] = [];
  let token: string | undefined;
  do {
    const d = (await search(s, { query: 'capybara', mode: 'literal', page_size: 1, ...(token ? { page_token: token } : {}) })).data;
    paged.push(...d.items.map((i: any) => (i.time - T0) / 60_000));
    token = d.page_token;
  } while (token);
  t.deepEqual(paged, expected);

  const again = await s.restart();
  t.teardown(() => again.stop());
  await ready(again);
  t.deepEqual(await times(again, { query: 'capybara' }), expected);
  t.deepEqual(await times(again, { query: 'capybara', sort: 'time_asc' }), expected, 'sort is ignored by literal mode');
  // Built from seq 0 (the journal's stream order) rather than read from the snapshot.
  const rebuilt = await again.restart({ rebuildProjections: true });
  t.teardown(() => rebuilt.stop());
  await ready(rebuilt);
  t.is(rebuilt.search.lastStart?.from, 'journal');
  t.deepEqual(await times(rebuilt, { query: 'capybara' }), expected);
});

test('literal mode over thousands of documents written newest first: the page is the newest matches, not the last written', async (t) => {
  const s = await serverFor(t);
  const sid = await newSession(s);
  const n = 3000;
  // One batch, minute n-1 first: the store's last bytes are the oldest messages.
  const events = Array.from({ length: n }, (_, i) => {
    const minute = n - 1 - i;
    return {
      stream: sid, type: 'message.created' as const,
      payload: { agent_id: 'main', message: { id: `m${i}`, session_id: sid, role: 'user' as const, content: [{ type: 'text' as const, text: `tapir log line ${minute}` }], created_at: new Date(T0 + minute * 60_000).toISOString() } },
    };
  });
  await s.journal.append(events);
  await ready(s);
  const want = [n - 1, n - 2, n - 3, n - 4, n - 5];
  t.deepEqual(await times(s, { query: 'tapir log', page_size: 5 }), want);
  const again = await s.restart();
  t.teardown(() => again.stop());
  await ready(again);
  t.deepEqual(await times(again, { query: 'tapir log', page_size: 5 }), want);
  // Complete within the query deadline (400 ms): on a loaded machine the first scan after a restart may miss it.
  const d = await until(async () => {
    const r = (await search(again, { query: 'tapir log', mode: 'literal', page_size: 5 })).data;
    return r.incomplete === undefined ? r : undefined;
  }, 30_000, 'a complete literal page');
  t.true(d.has_more);
  const rebuilt = await again.restart({ rebuildProjections: true });
  t.teardown(() => rebuilt.stop());
  await ready(rebuilt);
  t.deepEqual(await times(rebuilt, { query: 'tapir log', page_size: 5 }), want);
});
