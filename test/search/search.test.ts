import test from 'ava';
import { newSession, serverFor, type TestServer } from '../helpers/server.ts';
import { recordedSession } from '../helpers/recorded-session.ts';
import { until } from '../helpers/wait.ts';
import { populate, ready, say, search, T0 } from './helpers.ts';

test('terms mode: AND and OR, filters, sorts, snippets, titles, CJK; archived sessions only when named', async (t) => {
  const s = await serverFor(t);
  const { a, b, archived } = await populate(s);
  await ready(s);

  const and = (await search(s, { query: 'zebra postgres' })).data;
  t.is(and.source, 'index');
  t.like(and.index_state, { state: 'ready', total_sessions: 3 });
  t.true(and.index_state.documents >= 6);
  t.deepEqual(and.items.map((i: any) => i.snippet.includes('zebra')), [true, true]);
  t.deepEqual(and.items.map((i: any) => i.session_id).sort(), [a, b].sort());
  const first = and.items.find((i: any) => i.session_id === a);
  t.like(first, { workspace_id: first.workspace_id, session_title: 'Zebra migration plan', agent_id: 'main', role: 'user', time: T0 + 60_000, turn: 'turn_1' });
  t.true(first.score > 0);

  const or = (await search(s, { query: 'giraffe indexes', op: 'OR' })).data;
  t.deepEqual(or.items.map((i: any) => i.snippet).sort(), [
    'Migrate the zebra tables first, then the indexes. 你好世界 is a test string.',
    'The giraffe service needs a postgres upgrade',
    'Upgrade postgres on the giraffe host; zebra is unaffected',
  ]);
  // Both terms weigh more than one: the rarer pair first.
  t.is((await search(s, { query: 'giraffe upgrade', op: 'OR' })).data.items.length, 2);

  t.deepEqual((await search(s, { query: 'zebra', role: 'title' })).data.items.map((i: any) => i.snippet), ['Zebra migration plan']);
  t.deepEqual((await search(s, { query: 'zebra', container: { agent_id: 'agent_x' } })).data.items.map((i: any) => i.agent_id), ['agent_x']);
  t.deepEqual((await search(s, { query: 'zebra', sort: 'time_asc', role: 'user' })).data.items.map((i: any) => i.time), [T0 + 60_000]);
  t.deepEqual((await search(s, { query: 'postgres', sort: 'time_desc' })).data.items.map((i: any) => i.time), [T0 + 4 * 60_000, T0 + 3 * 60_000, T0 + 60_000]);
  t.deepEqual((await search(s, { query: 'postgres', start_time: T0 + 2 * 60_000, end_time: T0 + 3 * 60_000 })).data.items.map((i: any) => i.time), [T0 + 3 * 60_000]);
  t.is((await search(s, { query: '世界' })).data.items[0].session_id, a);
  // The archived session's message is found only when the query names the session.
  t.false((await search(s, { query: 'archive' })).data.items.some((i: any) => i.session_id === archived));
  t.is((await search(s, { query: 'archive', container: { session_id: archived } })).data.items.length, 1);
});

test('literal mode: exact case-sensitive substring, newest first, snippet around the match', async (t) => {
  const s = await serverFor(t);
  await populate(s);
  const long = `${'lorem ipsum '.repeat(30)}NEEDLE in the middle${' dolor sit'.repeat(30)}`;
  const c = await newSession(s);
  await say(s, c, 'm9', 'user', long, 9);
  await ready(s);
  const hits = (await search(s, { query: 'postgres', mode: 'literal' })).data.items;
  t.deepEqual(hits.map((i: any) => i.time), [T0 + 4 * 60_000, T0 + 3 * 60_000, T0 + 60_000]);
  t.is((await search(s, { query: 'Postgres', mode: 'literal' })).data.items.length, 0);
  t.is((await search(s, { query: 'tables first, then', mode: 'literal' })).data.items.length, 1);
  const snip = (await search(s, { query: 'NEEDLE', mode: 'literal' })).data.items[0].snippet;
  t.true(snip.startsWith('…') && snip.endsWith('…') && snip.includes('NEEDLE in the middle'));
  t.true(snip.length < 220);
});

test('page tokens walk every hit once; a token of another query or generation, or a broken one, is 40001', async (t) => {
  const s = await serverFor(t);
  const sid = await newSession(s);
  for (let i = 0; i < 7; i++) await say(s, sid, `p${i}`, 'user', `okapi number ${i}`, i);
  await ready(s);
  const seen: string[] = [];
  let token: string | undefined;
  let pages = 0;
  do {
    const page = (await search(s, { query: 'okapi', sort: 'time_asc', page_size: 3, ...(token ? { page_token: token } : {}) })).data;
    seen.push(...page.items.map((i: any) => i.snippet));
    token = page.page_token;
    t.is(page.has_more, token !== undefined);
    pages += 1;
  } while (token);
  t.is(pages, 3);
  t.deepEqual(seen, Array.from({ length: 7 }, (_, i) => `okapi number ${i}`));
  const first = (await search(s, { query: 'okapi', page_size: 3 })).data.page_token;
  t.is((await search(s, { query: 'okapi', page_size: 3, sort: 'time_desc', page_token: first })).code, 40001);
  t.is((await search(s, { query: 'number', page_size: 3, page_token: first })).code, 40001);
  t.is((await search(s, { query: 'okapi', page_token: 'garbage!' })).code, 40001);
  // A restart builds a new index generation: old tokens are refused.
  const again = await s.restart();
  t.teardown(() => again.stop());
  await ready(again);
  const stale = await search(again, { query: 'okapi', page_size: 3, page_token: first });
  t.is(stale.code, 40001);
  t.is(stale.details[0].field, 'page_token');
});

test('40001: empty query, no searchable terms, more than 32 terms, bad fields', async (t) => {
  const s = await serverFor(t);
  t.is((await search(s, { query: '' })).code, 40001);
  t.is((await search(s, { query: '  ,;  ' })).code, 40001);
  const many = Array.from({ length: 33 }, (_, i) => `w${i}`).join(' ');
  const r = await search(s, { query: many });
  t.is(r.code, 40001);
  t.regex(r.details[0].message, /32/);
  t.is((await search(s, { query: `${many.split(' ').slice(0, 32).join(' ')} w0 W0` })).code, 0);
  t.is((await search(s, { query: 'x', page_size: 51 })).code, 40001);
  t.is((await search(s, { query: 'x', mode: 'regex' })).code, 40001);
  t.is((await search(s, {})).code, 40001);
});

test('incremental: new messages, titles, undo and archive change answers without a rebuild; a rebuild gives the same answers', async (t) => {
  const s = await serverFor(t);
  const sid = await newSession(s);
  await ready(s);
  for (const e of recordedSession(sid)) await s.journal.append([e]);
  const q = async (query: string, extra = {}) => (await search(s, { query, ...extra })).data.items.map((i: any) => i.snippet).sort();
  const hits = async (query: string) => (await search(s, { query })).data.items.map((i: any) => `${i.role}: ${i.snippet}`).sort();
  await until(async () => (await q('question')).length === 3 || undefined, 30_000, 'indexed');
  // Turn 3 was undone; the compaction summary is not indexed; the subagent's messages are. The first prompt
  // titled the session, so its title is a hit beside the message.
  t.deepEqual(await hits('question'), ['title: question 1', 'user: question 1', 'user: question 2']);
  t.deepEqual(await q('summary'), []);
  t.deepEqual(await q('found'), ['Found it.']);
  await s.post(`/api/v1/sessions/${sid}/profile`, { title: 'Quokka review' });
  await until(async () => (await q('quokka')).length === 1 || undefined, 30_000, 'title indexed');
  const all = async () => ({ q: await q('question'), a: await q('answer', { op: 'OR' }), t: await q('quokka') });
  const before = await all();
  const again = await s.restart({ rebuildProjections: true });
  t.teardown(() => again.stop());
  await ready(again);
  const s2 = again;
  const q2 = async (query: string, extra = {}) => (await search(s2, { query, ...extra })).data.items.map((i: any) => i.snippet).sort();
  t.deepEqual({ q: await q2('question'), a: await q2('answer', { op: 'OR' }), t: await q2('quokka') }, before);
  await s2.post(`/api/v1/sessions/${sid}:archive`);
  await until(async () => (await q2('quokka')).length === 0 || undefined, 30_000, 'archived session hidden');
  await s2.post(`/api/v1/sessions/${sid}:restore`);
  await until(async () => (await q2('quokka')).length === 1 || undefined, 30_000, 'restored session shown');
});

test('[database] search = false keeps the index in the server process, with the same answers as the worker', async (t) => {
  const worker = await serverFor(t);
  const inProcess = await serverFor(t, { config: '[database]\nsearch = false\n' });
  t.is(worker.search.kind, 'worker');
  t.is(inProcess.search.kind, 'in-process');
  const answers = async (s: TestServer) => {
    await populate(s);
    await ready(s);
    const out = [];
    for (const body of [{ query: 'zebra postgres' }, { query: 'giraffe zebra', op: 'OR', sort: 'time_asc' }, { query: 'the', mode: 'literal' }, { query: '世界' }]) {
      const d = (await search(s, body)).data;
      // Title times are the creation times of two servers; message times come from the messages.
      out.push({ n: d.items.length, items: d.items.map((i: any) => [i.role, i.agent_id, i.snippet, i.role === 'title' ? 0 : i.time, i.score]), docs: d.index_state.documents });
    }
    return out;
  };
  t.deepEqual(await answers(inProcess), await answers(worker));
});

test('a live session named by container.session_id is searched in memory (source: live)', async (t) => {
  const { recordSession } = await import('../helpers/archive.ts');
  const r = await recordSession(t);
  const d = (await search(r.s, { query: 'giraffe', container: { session_id: r.sid } })).data;
  t.is(d.source, 'live');
  t.deepEqual(d.items.map((i: any) => [i.role, i.snippet]), [['user', 'and say hello to the giraffe']]);
  t.is((await search(r.s, { query: 'giraffe' })).data.source, 'index');
});

test('a deleted session (POST :delete) is gone from the index: messages and title, even when named', async (t) => {
  const s = await serverFor(t);
  const { a, b } = await populate(s);
  await ready(s);
  t.deepEqual((await search(s, { query: 'zebra migration' })).data.items.map((x: any) => x.session_id).sort(), [a]);
  t.is((await s.post(`/api/v1/sessions/${a}:delete`)).code, 0);
  await until(async () => ((await search(s, { query: 'zebra' })).data.items.every((x: any) => x.session_id !== a)) || undefined, 30_000, 'index drops the session');
  t.deepEqual((await search(s, { query: 'zebra', container: { session_id: a } })).data.items, []);
  t.deepEqual((await search(s, { query: 'giraffe' })).data.items.map((x: any) => x.session_id), [b, b]);
});
