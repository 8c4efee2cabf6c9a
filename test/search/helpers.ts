import { newSession, type TestServer } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

export const T0 = Date.parse('2026-03-01T00:00:00.000Z');

/** Appends one message.created with text at minute `minute` after T0. */
export async function say(s: TestServer, sid: string, id: string, role: 'user' | 'assistant', text: string, minute: number, agent = 'main') {
  const message = { id, session_id: sid, role, content: [{ type: 'text' as const, text }], created_at: new Date(T0 + minute * 60_000).toISOString() };
  await s.journal.append([{ stream: sid, type: 'message.created', payload: { agent_id: agent, turn_id: `turn_${minute}`, message } }]);
}

export const search = (s: TestServer, body: Record<string, unknown>) => s.post('/api/v1/search', body);

/** Waits until the index answers `ready` (and, with `degraded`, says so). */
export async function ready(s: TestServer, opts: { degraded?: boolean } = {}) {
  await s.search.whenReady();
  return until(async () => {
    const r = await search(s, { query: 'x' });
    if (r.code !== 0) throw new Error(JSON.stringify(r));
    const st = r.data.index_state;
    return (st.state === 'ready' && (opts.degraded === undefined || (st.degraded ?? false) === opts.degraded)) || undefined;
  }, 30_000, 'index ready');
}

/** Two sessions with messages at known minutes, one titled, one archived. */
export async function populate(s: TestServer) {
  const a = await newSession(s, { title: 'Zebra migration plan' });
  const b = await newSession(s);
  const archived = await newSession(s);
  await say(s, a, 'm1', 'user', 'How do we migrate the zebra database to postgres?', 1);
  await say(s, a, 'm2', 'assistant', 'Migrate the zebra tables first, then the indexes. 你好世界 is a test string.', 2);
  await say(s, b, 'm3', 'user', 'The giraffe service needs a postgres upgrade', 3);
  await say(s, b, 'm4', 'assistant', 'Upgrade postgres on the giraffe host; zebra is unaffected', 4, 'agent_x');
  await say(s, archived, 'm5', 'user', 'zebra in the archive', 5);
  await s.post(`/api/v1/sessions/${archived}:archive`);
  return { a, b, archived };
}

/** The answers of a fixed set of queries, comparable across servers (titles' times are when each server set them). */
export async function answers(s: TestServer, queries: Array<Record<string, unknown>> = QUERIES) {
  const out: Array<{ n: number; items: unknown[][]; docs: number }> = [];
  for (const body of queries) {
    const d = (await search(s, body)).data;
    out.push({ n: d.items.length, items: d.items.map((i: any): unknown[] => [i.session_id, i.role, i.agent_id, i.snippet, i.role === 'title' ? 0 : i.time, i.score, i.turn]), docs: d.index_state.documents });
  }
  return out;
}

export const QUERIES: Array<Record<string, unknown>> = [
  { query: 'zebra postgres' }, { query: 'giraffe zebra', op: 'OR', sort: 'time_asc' }, { query: 'the', mode: 'literal' }, { query: '世界' },
  { query: 'postgres', sort: 'time_desc' }, { query: 'zebra', role: 'title' }, { query: 'archive', container: {} },
];
