import test from 'ava';
import { freshDatabase, sql } from '../helpers/pg.ts';
import { newSession, startTestServer, type TestServer } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

// Two daemons (nodes) on one PostgreSQL journal, each with its own home: what one commits, the other follows
// (journal/pg/follower.ts, docs/scale-out.md).

async function twoNodes(t: { teardown(fn: () => unknown): void }, env: NodeJS.ProcessEnv = {}): Promise<{ url: string; a: TestServer; b: TestServer }> {
  const url = await freshDatabase();
  const a = await startTestServer({ options: { journalUrl: url }, env: { SVC_CODE_NODE_ID: 'node_a', ...env } });
  t.teardown(() => a.stop());
  const b = await startTestServer({ options: { journalUrl: url }, env: { SVC_CODE_NODE_ID: 'node_b', ...env } });
  t.teardown(() => b.stop());
  return { url, a, b };
}

const ids = async (s: TestServer, what: 'sessions' | 'workspaces') => ((await s.get(`/api/v1/${what}`)).data.items as { id: string }[]).map((x) => x.id).sort();

test('a workspace and a session created on A are listed on B, with the same session record', async (t) => {
  t.timeout(120_000);
  const { a, b } = await twoNodes(t);
  const sid = await newSession(a);
  const wid = (await a.get(`/api/v1/sessions/${sid}`)).data.workspace_id as string;
  await until(async () => (await ids(b, 'sessions')).includes(sid), 30_000);
  t.deepEqual(await ids(b, 'workspaces'), await ids(a, 'workspaces'));
  t.true((await ids(b, 'workspaces')).includes(wid));
  t.deepEqual((await b.get(`/api/v1/sessions/${sid}`)).data, (await a.get(`/api/v1/sessions/${sid}`)).data);
  t.deepEqual((await b.eventsOf(sid)).map((e) => [e.seq, e.type]), (await a.eventsOf(sid)).map((e) => [e.seq, e.type]));
});

test('B follows A by its committed events: each of A\'s session events once, in seq order with no gap', async (t) => {
  t.timeout(120_000);
  const { a, b } = await twoNodes(t);
  const seen = b.committed((e) => e.stream.startsWith('session_'));
  const sids = [await newSession(a), await newSession(a)];
  const onA = await Promise.all(sids.map(async (sid) => (await a.eventsOf(sid)).map((e) => e.seq)));
  await until(() => sids.every((sid, i) => seen.filter((e) => e.stream === sid).length >= onA[i].length), 30_000);
  await new Promise((r) => setTimeout(r, 1_500)); // a duplicate would come with the next catch-up (1 s)
  t.deepEqual(sids.map((sid) => seen.filter((e) => e.stream === sid).map((e) => e.seq)), onA);
});

test('the LISTEN connection killed: B reconnects, catches up and still follows A', async (t) => {
  t.timeout(120_000);
  const { url, a, b } = await twoNodes(t, { SVC_CODE_FOLLOW_INTERVAL_MS: '60000' });
  const first = await newSession(a);
  await until(async () => (await ids(b, 'sessions')).includes(first), 30_000);
  const killed = await sql(url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'svc-code follower' AND datname = current_database()");
  t.is(killed.rowCount, 2, 'both nodes\' LISTEN connections');
  const second = await newSession(a);
  await until(async () => (await ids(b, 'sessions')).includes(second), 30_000);
  t.is(b.journal.failure, null);
});

test('a WebSocket subscriber on B gets the events A commits to a session: contiguous seqs, nothing twice', async (t) => {
  t.timeout(120_000);
  const { a, b } = await twoNodes(t);
  const sid = await newSession(a);
  await until(async () => (await ids(b, 'sessions')).includes(sid), 30_000);
  const c = await b.ws();
  t.teardown(() => c.close());
  t.is((await c.request('subscribe', { session_ids: [sid] })).code, 0);
  const from = a.journal.headSeq(sid);
  for (let i = 0; i < 5; i++) await a.journal.append([{ stream: sid, type: 'session.profile_updated', payload: { title: `t${i}` } }]);
  const to = a.journal.headSeq(sid);
  const durable = () => c.frames.filter((f) => f.session_id === sid && typeof f.seq === 'number' && !f.volatile && f.seq > from);
  await until(() => durable().some((f) => f.seq === to), 30_000);
  await new Promise((r) => setTimeout(r, 1_500)); // a duplicate would come with the next catch-up (1 s)
  t.deepEqual(durable().map((f) => f.seq), Array.from({ length: to - from }, (_, i) => from + 1 + i));
  t.is(b.journal.headSeq(sid), to);
});
