import test from 'ava';
import { addMessages, append, msg } from '../helpers/engine-events.ts';
import { newSession, serverFor } from '../helpers/server.ts';

const ids = (page: { items: { id: string }[] }) => page.items.map((m) => m.id);
const url = (id: string, q = '') => `/api/v1/sessions/${id}/messages${q}`;

test('newest first; before_id walks older, after_id walks newer, both newest first within a page', async (t) => {
  const s = await serverFor(t);
  const id = await newSession(s);
  await addMessages(s, id, 4);
  await addMessages(s, id, 3, { start: 5 });
  await addMessages(s, id, 2, { prefix: 'sub', agent_id: 'agent-2' });

  const all = await s.get(url(id));
  t.is(all.code, 0);
  t.deepEqual(ids(all.data), ['m7', 'm6', 'm5', 'm4', 'm3', 'm2', 'm1'], 'main agent only, default page 50');
  t.false(all.data.has_more);
  t.is(all.data.items[0].session_id, id);
  t.deepEqual(all.data.items[0].content, [{ type: 'text', text: 'message 7' }]);

  const p1 = (await s.get(url(id, '?page_size=3'))).data;
  t.deepEqual([ids(p1), p1.has_more], [['m7', 'm6', 'm5'], true]);
  const p2 = (await s.get(url(id, '?page_size=3&before_id=m5'))).data;
  t.deepEqual([ids(p2), p2.has_more], [['m4', 'm3', 'm2'], true]);
  const p3 = (await s.get(url(id, '?page_size=3&before_id=m2'))).data;
  t.deepEqual([ids(p3), p3.has_more], [['m1'], false]);

  const n1 = (await s.get(url(id, '?page_size=3&after_id=m1'))).data;
  t.deepEqual([ids(n1), n1.has_more], [['m4', 'm3', 'm2'], true]);
  const n2 = (await s.get(url(id, '?page_size=3&after_id=m4'))).data;
  t.deepEqual([ids(n2), n2.has_more], [['m7', 'm6', 'm5'], false]);
  const n3 = (await s.get(url(id, '?after_id=m7'))).data;
  t.deepEqual([ids(n3), n3.has_more], [[], false]);
});

test('the role filter applies after slicing: short pages while has_more is true', async (t) => {
  const s = await serverFor(t);
  const id = await newSession(s);
  await addMessages(s, id, 7);
  const p = (await s.get(url(id, '?page_size=3&role=assistant'))).data;
  t.deepEqual([ids(p), p.has_more], [['m6'], true]);
  const q = (await s.get(url(id, '?page_size=3&before_id=m5&role=user'))).data;
  t.deepEqual([ids(q), q.has_more], [['m3'], true]);
  const r = (await s.get(url(id, '?page_size=2&before_id=m3&role=tool'))).data;
  t.deepEqual([ids(r), r.has_more], [[], false]);
});

test('GET one message; 40403 for an unknown or foreign id, 40401 for an unknown session', async (t) => {
  const s = await serverFor(t);
  const a = await newSession(s);
  const b = await newSession(s);
  await append(s, a, 'message.created', { agent_id: 'main', turn_id: 't1', message: { ...msg(a, 'x1', 'assistant', 'hi'), prompt_id: 'p1' } });
  await addMessages(s, b, 1, { prefix: 'y' });
  const one = await s.get(`/api/v1/sessions/${a}/messages/x1`);
  t.is(one.code, 0);
  t.like(one.data, { id: 'x1', session_id: a, role: 'assistant', prompt_id: 'p1' });
  t.is((await s.get(`/api/v1/sessions/${a}/messages/nope`)).code, 40403);
  t.is((await s.get(`/api/v1/sessions/${a}/messages/y1`)).code, 40403, 'a message of another session');
  t.is((await s.get('/api/v1/sessions/session_nope/messages/x1')).code, 40401);
  t.is((await s.get(url('session_nope'))).code, 40401);
});

test('40001: both cursors, unknown cursor, page_size out of range, unknown role', async (t) => {
  const s = await serverFor(t);
  const id = await newSession(s);
  await addMessages(s, id, 2);
  const both = await s.get(url(id, '?before_id=m1&after_id=m2'));
  t.is(both.code, 40001);
  t.deepEqual(both.details.map((d: { field: string }) => d.field).sort(), ['after_id', 'before_id']);
  for (const q of ['?before_id=zz', '?after_id=zz', '?page_size=0', '?page_size=101', '?page_size=x', '?role=robot']) {
    const r = await s.get(url(id, q));
    t.is(r.code, 40001, q);
    t.is(r.details[0].field, q.slice(1).split('=')[0]);
  }
  t.is((await s.get(url(id, '?page_size=100'))).code, 0);
});

test('a fork carries the history under its own session id', async (t) => {
  const s = await serverFor(t);
  const id = await newSession(s);
  await addMessages(s, id, 3);
  const fork = (await s.post(`/api/v1/sessions/${id}:fork`, {})).data.id;
  const page = (await s.get(url(fork))).data;
  t.deepEqual(ids(page), ['m3', 'm2', 'm1']);
  t.true(page.items.every((m: { session_id: string }) => m.session_id === fork));
});

test('cost: a page reads page_size + 1 records, however long the session', async (t) => {
  const s = await serverFor(t);
  const id = await newSession(s);
  for (let i = 0; i < 5; i++) await addMessages(s, id, 200, { start: i * 200 + 1 });
  // Page reads are the message records' ranges with a limit (the undo range read beside them has none).
  const store = s.journal.store as any;
  const original = store.entries.bind(store);
  const reads: number[] = [];
  store.entries = async (range: { limit?: number }) => {
    const rows = await original(range);
    if (range.limit !== undefined) reads.push(rows.length);
    return rows;
  };
  t.teardown(() => (store.entries = original));
  const p = (await s.get(url(id, '?page_size=10&before_id=m500'))).data;
  t.deepEqual(ids(p), ['m499', 'm498', 'm497', 'm496', 'm495', 'm494', 'm493', 'm492', 'm491', 'm490']);
  t.true(p.has_more);
  const q = (await s.get(url(id, '?page_size=5&after_id=m10'))).data;
  t.deepEqual(ids(q), ['m15', 'm14', 'm13', 'm12', 'm11']);
  t.deepEqual(reads, [11, 6]);
});

test('/asyncapi.json documents the engine events and the two volatile deltas; /openapi.json the routes', async (t) => {
  const s = await serverFor(t);
  const doc = (await s.req('GET', '/asyncapi.json')).body as any;
  const msgs = doc.components.messages;
  const created = msgs['message.created'].payload.properties;
  t.is(created.type.const, 'message.created');
  t.deepEqual(Object.keys(created.payload.properties.message.properties), ['id', 'session_id', 'role', 'content', 'created_at', 'prompt_id', 'parent_message_id', 'metadata']);
  t.true('context_tokens' in msgs['turn.step.completed'].payload.properties.payload.properties);
  t.deepEqual(msgs['turn.ended'].payload.properties.payload.properties.reason.enum, ['completed', 'cancelled', 'failed']);
  // Broadcast, yet stamped with the session's own id (spec/clients.md E5).
  t.is(msgs['event.session.status_changed'].payload.properties.session_id.const, undefined);
  t.true(msgs['event.session.status_changed'].payload.properties.payload.required.includes('status'));
  for (const type of ['assistant.delta', 'thinking.delta']) {
    t.is(msgs[type].payload.properties.volatile.const, true, type);
    t.true(msgs[type].payload.required.includes('offset'));
  }
  const session = doc.operations.sendSessionEvents.messages.map((m: { $ref: string }) => m.$ref.split('/').pop());
  t.true(['prompt.accepted', 'turn.started', 'assistant.delta'].every((x) => session.includes(x)));
  const api = (await s.req('GET', '/openapi.json')).body as any;
  t.truthy(api.paths['/api/v1/sessions/{session_id}/messages']?.get);
  t.truthy(api.paths['/api/v1/sessions/{session_id}/messages/{message_id}']?.get);
  t.truthy(api.paths['/api/v1/sessions/{session_id}/snapshot']?.get);
});
