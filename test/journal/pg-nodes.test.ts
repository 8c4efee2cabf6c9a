import test from 'ava';
import { sql } from '../helpers/pg.ts';
import { followedPast, ids, twoNodes } from '../helpers/pg-nodes.ts';
import { engineConfig, fixtureLlm } from '../helpers/llm.ts';
import { newSession } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

// Two daemons (nodes) on one PostgreSQL journal, each with its own home: what one commits, the other follows
// (journal/pg/follower.ts, docs/scale-out.md).

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
  await followedPast(a, b);
  t.deepEqual(sids.map((sid) => seen.filter((e) => e.stream === sid).map((e) => e.seq)), onA);
});

test('the LISTEN connection killed: B reconnects, catches up and still follows A', async (t) => {
  t.timeout(120_000);
  const { url, a, b } = await twoNodes(t, { env: { SVC_CODE_FOLLOW_INTERVAL_MS: '60000' } });
  const first = await newSession(a);
  await until(async () => (await ids(b, 'sessions')).includes(first), 30_000);
  const killed = await sql(url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'svc-code follower' AND datname = current_database()");
  t.is(killed.rowCount, 2, 'both nodes\' LISTEN connections');
  const second = await newSession(a);
  await until(async () => (await ids(b, 'sessions')).includes(second), 30_000);
  t.is(b.journal.failure, null);
});

test('a WebSocket subscriber on B gets a real turn run on A: contiguous seqs, nothing twice; B\'s messages equal A\'s', async (t) => {
  t.timeout(120_000);
  const llm = await fixtureLlm(t);
  const { a, b } = await twoNodes(t, { config: engineConfig(llm.url) });
  const sid = await newSession(a);
  await until(async () => (await ids(b, 'sessions')).includes(sid), 30_000);
  const c = await b.ws();
  t.teardown(() => c.close());
  t.is((await c.request('subscribe', { session_ids: [sid] })).code, 0);
  const from = a.journal.headSeq(sid);
  llm.setScript({ events: [{ text: 'hello ' }, { text: 'from ' }, { text: 'node A' }] });
  t.is((await a.post(`/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: 'hi' }] })).code, 0);
  await c.waitFor((f) => f.type === 'turn.ended' && f.session_id === sid, 60_000);
  await followedPast(a, b);
  const to = a.journal.headSeq(sid);
  const durable = c.frames.filter((f) => f.session_id === sid && typeof f.seq === 'number' && !f.volatile && f.seq > from).map((f) => f.seq);
  t.deepEqual(durable, Array.from({ length: to - from }, (_, i) => from + 1 + i));
  t.is(b.journal.headSeq(sid), to);
  const messages = async (s: typeof a) => (await s.get(`/api/v1/sessions/${sid}/messages`)).data;
  const onA = await messages(a);
  t.true(JSON.stringify(onA).includes('hello from node A'));
  t.deepEqual(await messages(b), onA);
  // The turn streamed on B too (the volatile relay): every delta once, in order, none after its step was committed.
  const deltas = c.frames.filter((f) => f.session_id === sid && f.type === 'assistant.delta');
  t.is(deltas.map((f) => f.payload.text).join(''), 'hello from node A');
  const stepDone = c.frames.findIndex((f) => f.session_id === sid && f.type === 'message.created' && f.payload.message?.role === 'assistant');
  t.true(c.frames.indexOf(deltas.at(-1)!) < stepDone, 'the deltas came before the committed message');
});
