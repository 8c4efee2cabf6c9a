import test, { type ExecutionContext } from 'ava';
import { newSession, serverFor, type TestServer } from '../helpers/server.ts';

// Budgets are read from the environment when a server starts: one server per budget, one at a time.

async function withDocs(t: ExecutionContext, env: Record<string, string>): Promise<TestServer> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  let s: TestServer;
  try {
    s = await serverFor(t);
  } finally {
    for (const k of Object.keys(env)) if (saved[k] === undefined) delete process.env[k];
  }
  const sid = await newSession(s);
  const at = new Date('2026-03-01T00:00:00.000Z').toISOString();
  const events = Array.from({ length: 12 }, (_, i) => ({
    stream: sid, type: 'message.created' as const,
    payload: { agent_id: 'main', message: { id: `m${i}`, session_id: sid, role: 'user' as const, content: [{ type: 'text' as const, text: `wombat burrow ${i}` }], created_at: at } },
  }));
  await s.journal.append(events);
  await s.search.whenReady();
  return s;
}

test.serial('candidate_cap: more matches than the cap answer a page marked incomplete', async (t) => {
  const s = await withDocs(t, { SVC_CODE_SEARCH_CANDIDATE_CAP: '5' });
  const d = (await s.post('/api/v1/search', { query: 'wombat burrow', page_size: 50 })).data;
  t.is(d.incomplete, 'candidate_cap');
  t.is(d.items.length, 5);
  t.is((await s.post('/api/v1/search', { query: 'wombat', mode: 'literal', page_size: 50 })).data.incomplete, 'candidate_cap');
  t.is((await s.post('/api/v1/search', { query: 'burrow 3' })).data.incomplete, undefined);
});

test.serial('postings_budget: a query walking more postings than the budget stops there', async (t) => {
  const s = await withDocs(t, { SVC_CODE_SEARCH_POSTINGS_BUDGET: '4' });
  const d = (await s.post('/api/v1/search', { query: 'wombat burrow', op: 'OR', page_size: 50 })).data;
  t.is(d.incomplete, 'postings_budget');
  t.true(d.items.length <= 4);
});

test.serial('deadline: a query past its time budget answers what it found', async (t) => {
  const s = await withDocs(t, { SVC_CODE_SEARCH_DEADLINE_MS: '0.000001' });
  const d = (await s.post('/api/v1/search', { query: 'burrow', mode: 'literal', page_size: 50 })).data;
  t.is(d.incomplete, 'deadline');
});
