import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { StreamConflictError } from '../../journal/store.ts';
import { mappedError } from '../../protocol/error-mapping.ts';
import type { JournalEvent } from '../../journal/types.ts';
import { Codes } from '../../protocol/codes.ts';
import { followedPast, ids, listed, twoNodes } from '../helpers/pg-nodes.ts';
import { newSession } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

// Two nodes writing the same moment (issue 28, docs/journal.md "Concurrent writers"): a shared stream's append that
// loses the race is caught up and written again; a session stream's is refused alone; the journal never fails.

const ROUNDS = 12;

test('two nodes registering workspaces and changing the config at once: both journals healthy, both list everything in one order', async (t) => {
  t.timeout(180_000);
  const { a, b } = await twoNodes(t);
  const dirs = await Promise.all(Array.from({ length: 2 * ROUNDS }, () => mkdtemp(path.join(os.tmpdir(), 'svc-ws-'))));
  const answers = await Promise.all(dirs.map((root, i) => {
    const node = i % 2 ? b : a;
    return Promise.all([
      node.post('/api/v1/workspaces', { root }),
      node.post('/api/v1/config', { auto_session_title: i % 4 < 2 }),
    ]);
  }));
  t.deepEqual(answers.flat().map((r) => r.code), answers.flat().map(() => 0), JSON.stringify(answers.flat().find((r) => r.code !== 0)));
  t.is(a.journal.failure, null);
  t.is(b.journal.failure, null);
  await followedPast(a, b);
  await followedPast(b, a);
  const roots = async (s: typeof a) => ((await s.get('/api/v1/workspaces?limit=200')).data.items as { root: string }[]).map((w) => w.root);
  for (const dir of dirs) t.true((await roots(a)).includes(dir) && (await roots(b)).includes(dir), dir);
  t.deepEqual(await listed(b, 'workspaces'), await listed(a, 'workspaces'));
  t.deepEqual((await b.get('/api/v1/config')).data, (await a.get('/api/v1/config')).data);
  t.deepEqual((await b.eventsOf('__global__')).map((e) => [e.seq, e.type]), (await a.eventsOf('__global__')).map((e) => [e.seq, e.type]));
  // Still writing: a session made on each.
  const [sa, sb] = [await newSession(a), await newSession(b)];
  await until(async () => (await ids(a, 'sessions')).includes(sb) && (await ids(b, 'sessions')).includes(sa), 30_000);
});

test('one root registered on both nodes at once: registered once, the other a reopen, the same answer on both', async (t) => {
  t.timeout(180_000);
  const { a, b } = await twoNodes(t);
  const roots = await Promise.all(Array.from({ length: ROUNDS }, () => mkdtemp(path.join(os.tmpdir(), 'svc-ws-'))));
  const answers = await Promise.all(roots.map((root) => Promise.all([a, b].map((s) => s.post('/api/v1/workspaces', { root })))));
  t.is(a.journal.failure, null);
  t.is(b.journal.failure, null);
  await followedPast(a, b);
  await followedPast(b, a);
  const global = await a.eventsOf('__global__');
  for (const [i, root] of roots.entries()) {
    const [onA, onB] = answers[i];
    t.is(onA.code, 0);
    t.is(onB.code, 0);
    t.is(onA.data.id, onB.data.id);
    t.is(onA.data.created_at, onB.data.created_at, 'the second registration reopens the first one\'s workspace');
    const created = global.filter((e) => e.type === 'event.workspace.created' && (e.payload as { root: string }).root === root);
    t.is(created.length, 1, root);
  }
  t.deepEqual(await listed(b, 'workspaces'), await listed(a, 'workspaces'));
});

test('two nodes appending to one session stream at once: one append is refused with the conflict, the journals keep serving', async (t) => {
  t.timeout(120_000);
  const { a, b } = await twoNodes(t);
  const sid = await newSession(a);
  await until(() => b.journal.headSeq(sid) === a.journal.headSeq(sid), 30_000);
  const results = await Promise.allSettled([a, b].map((s, i) => s.journal.append([
    { stream: sid, type: 'session.profile_updated', payload: { title: `from ${i ? 'b' : 'a'}` } },
  ])));
  const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  t.is(refused.length, 1, JSON.stringify(results.map((r) => r.status)));
  t.true(refused[0].reason instanceof StreamConflictError);
  t.regex((refused[0].reason as Error).message, new RegExp(`stream ${sid} .*another node appended to it first`));
  // What a client whose request met it is told: the spec's "session busy", nothing written.
  t.like(mappedError(refused[0].reason), { code: 40901, details: { reason: 'written_by_other_node', stream: sid } });
  t.is(a.journal.failure, null);
  t.is(b.journal.failure, null);
  await until(() => b.journal.headSeq(sid) === a.journal.headSeq(sid), 30_000);
  // Both still write (the loser too, on the session stream it lost): the other node follows.
  const loser = results[0].status === 'rejected' ? a : b;
  await loser.journal.append([{ stream: sid, type: 'session.profile_updated', payload: { title: 'again' } }]);
  const other = loser === a ? b : a;
  await until(() => other.journal.headSeq(sid) === loser.journal.headSeq(sid), 30_000);
  const [sa, sb] = [await newSession(a), await newSession(b)];
  await until(async () => (await ids(a, 'sessions')).includes(sb) && (await ids(b, 'sessions')).includes(sa), 30_000);
});

test('a session deleted on A is gone from B: not listed, not found, its stream head dropped', async (t) => {
  t.timeout(120_000);
  const { a, b } = await twoNodes(t);
  const sid = await newSession(a);
  const kept = await newSession(a);
  await until(() => b.journal.hasStream(kept), 30_000);
  t.is((await a.post(`/api/v1/sessions/${sid}:delete`)).code, 0);
  await followedPast(a, b);
  t.false((await ids(b, 'sessions')).includes(sid));
  t.true((await ids(b, 'sessions')).includes(kept));
  const res = await b.req('GET', `/api/v1/sessions/${sid}`);
  t.is(res.body.code, Codes.SESSION_NOT_FOUND);
  t.false(b.journal.hasStream(sid));
  t.false([...b.journal.streams()].includes(sid));
  t.deepEqual(await b.eventsOf(sid), []);
});

test('a projection that throws on a followed event gets it again on the retry: nothing skipped, nothing twice', async (t) => {
  t.timeout(120_000);
  const { a, b } = await twoNodes(t);
  const sid = await newSession(a);
  await until(() => b.journal.hasStream(sid), 30_000);
  const apply = b.sessions.apply.bind(b.sessions);
  let thrown = 0;
  b.sessions.apply = (e: JournalEvent) => {
    if (e.stream === sid && e.type === 'session.profile_updated' && thrown === 0) {
      thrown++;
      throw new Error('a projection failing once');
    }
    return apply(e);
  };
  const seen = b.committed((e) => e.stream === sid);
  const [written] = await a.journal.append([{ stream: sid, type: 'session.profile_updated', payload: { title: 'renamed on A' } }]);
  await until(async () => (await b.get(`/api/v1/sessions/${sid}`)).data.title === 'renamed on A', 30_000);
  await followedPast(a, b);
  t.is(thrown, 1);
  t.deepEqual(seen.map((e) => e.seq), [written.seq]);
  t.is(b.journal.headSeq(sid), a.journal.headSeq(sid));
});
