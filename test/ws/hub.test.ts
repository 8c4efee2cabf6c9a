import test, { type ExecutionContext } from 'ava';
import WebSocket from 'ws';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthBan } from '../../protocol/access/token.ts';
import { WsHub } from '../../src/ws/hub.ts';
import { accessPolicy } from '../../protocol/access/host.ts';
import { appendUnchecked } from '../helpers/engine-events.ts';
import { connectWs, newSession, serverFor, startTestServer, TEST_TOKEN, type TestServer, type WsClient } from '../helpers/server.ts';

const auth = { Authorization: `Bearer ${TEST_TOKEN}` };

async function client(t: ExecutionContext, s: TestServer, opts?: Parameters<TestServer['ws']>[0]): Promise<WsClient> {
  const c = await s.ws(opts);
  t.teardown(() => c.close());
  return c;
}

/** A second hub built like the server's, on its own listener: lets a test reach publishVolatile or choose the ban policy. */
async function extraHub(t: ExecutionContext, s: TestServer, ban: AuthBan): Promise<{ hub: WsHub; base: string }> {
  const hub = new WsHub(s.hubDeps, ban, accessPolicy({ host: '127.0.0.1' }));
  const http = createServer();
  hub.attach(http);
  s.journal.on('committed', hub.onCommitted);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  t.teardown(async () => {
    s.journal.off('committed', hub.onCommitted);
    await hub.close();
    await new Promise((resolve) => http.close(resolve));
  });
  return { hub, base: `http://127.0.0.1:${(http.address() as AddressInfo).port}` };
}

/** Appends `n` session events directly (one batch each when `separate`). */
async function appendEvents(
  s: TestServer, sessionId: string, n: number, payload: (i: number) => Record<string, unknown> = (i) => ({ title: `t${i}` }), unchecked = false,
) {
  const events = Array.from({ length: n }, (_, i) => ({ stream: sessionId, type: 'session.profile_updated' as const, payload: payload(i) }));
  // `unchecked`: payloads no emitter builds (agent_id on a profile update); the transport carries whatever it is given.
  return unchecked ? appendUnchecked(s, events) : s.journal.append(events);
}

const head = (s: TestServer, id: string) => s.journal.head(id)!;
const eventsOf = (c: WsClient, id: string) => c.frames.filter((f) => f.session_id === id && typeof f.seq === 'number' && !f.volatile);

function closeCode(c: WsClient): Promise<number> {
  return new Promise((resolve) => {
    if (c.socket.readyState === WebSocket.CLOSED) return resolve(-1);
    c.socket.once('close', (code) => resolve(code));
  });
}

test.serial('a stalled client is closed with 1013 and never delays another client', async (t) => {
  process.env.SVC_CODE_WS_MAX_BUFFERED_BYTES = String(64 * 1024);
  let s: TestServer;
  try {
    s = await serverFor(t);
  } finally {
    delete process.env.SVC_CODE_WS_MAX_BUFFERED_BYTES;
  }
  const id = await newSession(s);
  const fast = await client(t, s);
  const slow = await client(t, s);
  t.is((await fast.request('subscribe', { session_ids: [id] })).code, 0);
  t.is((await slow.request('subscribe', { session_ids: [id] })).code, 0);
  const slowId = slow.frames[0].payload.ws_connection_id;
  const closed = closeCode(slow);
  (slow.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();

  const big = 'x'.repeat(64 * 1024);
  let last = 0;
  let shed = false;
  for (let i = 0; i < 400 && !shed; i++) {
    const batch = await appendEvents(s, id, 8, () => ({ metadata: { blob: big } }));
    last = batch[batch.length - 1].seq;
    const conns = (await s.get('/api/v1/connections')).data.connections;
    shed = !conns.some((c: { id: string }) => c.id === slowId);
  }
  t.true(shed, 'the stalled connection was dropped from the hub');
  const got = await fast.waitFor((f) => f.session_id === id && f.seq === last, 30_000);
  t.is(got.type, 'session.profile_updated');
  const seqs = eventsOf(fast, id).map((f) => f.seq);
  t.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => seqs[0] + i), 'the fast client got every event, in order');

  (slow.socket as unknown as { _socket: { resume(): void } })._socket.resume();
  t.is(await closed, 1013);
});

test('auth by header: server_hello carries the protocol fields', async (t) => {
  const s = await serverFor(t);
  const c = await client(t, s);
  const hello = await c.waitFor((f) => f.type === 'server_hello');
  t.is(c.frames[0], hello);
  t.regex(hello.payload.ws_connection_id, /^wsc_/);
  t.is(hello.payload.protocol_version, 2);
  t.is(hello.payload.max_event_buffer_size, 1000);
  t.deepEqual(hello.payload.capabilities, { event_batching: false, compression: false });
  t.truthy(Date.parse(hello.timestamp));
});

test('auth by subprotocol: the bearer subprotocol is selected', async (t) => {
  const s = await serverFor(t);
  const proto = `svc-code.bearer.${TEST_TOKEN}`;
  const c = await client(t, s, { protocols: [proto] });
  t.is(c.socket.protocol, proto);
  t.is((await c.waitFor((f) => f.type === 'server_hello')).payload.protocol_version, 2);
});

test('upgrade refused: bad or missing token 401, foreign Origin 403, other path 404', async (t) => {
  const s = await serverFor(t);
  await t.throwsAsync(connectWs(s.baseUrl, undefined, { Authorization: 'Bearer wrong' }), { message: /401/ });
  await t.throwsAsync(connectWs(s.baseUrl), { message: /401/ });
  await t.throwsAsync(connectWs(s.baseUrl, ['svc-code.bearer.wrong']), { message: /401/ });
  await t.throwsAsync(connectWs(s.baseUrl, undefined, { ...auth, Origin: 'https://evil.example' }), { message: /403/ });
  const ok = await connectWs(s.baseUrl, undefined, { ...auth, Origin: 'http://localhost:3000' });
  await ok.close();
  const status = await new Promise<number>((resolve, reject) => {
    const ws = new WebSocket(s.baseUrl.replace(/^http/, 'ws') + '/api/v1/other', { headers: auth });
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.once('open', () => reject(new Error('opened')));
    ws.once('error', () => undefined);
  });
  t.is(status, 404);
});

test('dangerous bypass: no token needed', async (t) => {
  const s = await startTestServer({ options: { dangerousBypassAuth: true } });
  t.teardown(() => s.stop());
  const c = await connectWs(s.baseUrl);
  t.teardown(() => c.close());
  t.is((await c.waitFor((f) => f.type === 'server_hello')).payload.protocol_version, 2);
});

test('acks echo the id; unknown type, malformed JSON and bad payloads get 40001', async (t) => {
  const s = await serverFor(t);
  const c = await client(t, s);
  const hello = await c.request('client_hello', { client_id: 'cli-1', legacy: true }, 'abc');
  t.like(hello, { type: 'ack', id: 'abc', code: 0, msg: 'success' });
  const numeric = await c.request('unsubscribe', { session_ids: [] }, 42 as unknown as string);
  t.is(numeric.id, 42);
  const unknown = await c.request('nope', {}, 'u1');
  t.like(unknown, { id: 'u1', code: 40001 });
  t.regex(unknown.msg, /unknown frame type/);
  const bad = await c.request('subscribe', { session_ids: 'x' }, 'b1');
  t.like(bad, { id: 'b1', code: 40001 });
  t.is(bad.details[0].field, 'payload.session_ids');
  const v2 = await c.request('subscribe_v2', { session_id: 'x', transcript: {} }, 'v2');
  t.like(v2, { code: 40401, details: { not_found: ['x'] } });
  c.socket.send('{not json');
  const malformed = await c.waitFor((f) => f.type === 'ack' && f.id === null);
  t.is(malformed.code, 40001);
});

test('subscribe: unknown ids answer 40401 naming them; the known ones are subscribed', async (t) => {
  const s = await serverFor(t);
  const id = await newSession(s);
  const c = await client(t, s);
  const ack = await c.request('subscribe', { session_ids: [id, 'session_missing'] });
  t.is(ack.code, 40401);
  t.deepEqual(ack.details.not_found, ['session_missing']);
  t.deepEqual(ack.payload.subscribed, [id]);
  await appendEvents(s, id, 1);
  t.is((await c.waitFor((f) => f.session_id === id)).type, 'session.profile_updated');
});

test('subscribe: a session held by another instance answers 40901 and is not subscribed', async (t) => {
  const s = await serverFor(t);
  const id = await newSession(s);
  const record = s.sessions.get(id)!;
  const foreignId = 'session_01FOREIGN0000000000000000';
  s.sessions.upsert({ ...record, id: foreignId, foreign: { server_id: 'srv_other', slot: 'slot-2' } });
  const c = await client(t, s);
  const ack = await c.request('subscribe', { session_ids: [foreignId, id] });
  t.is(ack.code, 40901);
  t.like(ack.details.held_by_other_instance[0], { session_id: foreignId, reason: 'held_by_other_instance' });
  t.deepEqual(ack.payload.subscribed, [id]);
});

test('auth failures are counted at the upgrade: the 11th attempt of a banned source gets 429', async (t) => {
  const s = await serverFor(t);
  const { base } = await extraHub(t, s, new AuthBan(true));
  for (let i = 0; i < 10; i++) await t.throwsAsync(connectWs(base, undefined, { Authorization: 'Bearer wrong' }), { message: /401/ });
  await t.throwsAsync(connectWs(base, undefined, auth), { message: /429/ });
});

test('global events reach connections without subscriptions', async (t) => {
  const s = await serverFor(t);
  const c = await client(t, s);
  const id = await newSession(s);
  const created = await c.waitFor((f) => f.type === 'event.session.created');
  t.is(created.session_id, '__global__');
  t.is(created.payload.id, id);
  t.is(typeof created.seq, 'number');
  t.is(typeof created.epoch, 'string');
  const ws = await c.waitFor((f) => f.type === 'event.workspace.created');
  t.is(ws.payload.id, created.payload.workspace_id);
  t.false(c.frames.some((f) => f.type === 'session.created'), 'session events need a subscription');
});

test('session events go only to subscribers; agent_filter keeps matching and agent-less events', async (t) => {
  const s = await serverFor(t);
  const id = await newSession(s);
  const sub = await client(t, s);
  const other = await client(t, s);
  const filtered = await client(t, s);
  await sub.request('subscribe', { session_ids: [id] });
  await filtered.request('subscribe', { session_ids: [id], agent_filter: ['a1'] });
  const res = await s.post(`/api/v1/sessions/${id}/profile`, { title: 'Renamed' });
  t.is(res.code, 0);
  const ev = await sub.waitFor((f) => f.type === 'session.profile_updated');
  // session.meta.updated follows in the same batch, on the session's stream (spec/clients.md E5).
  t.like(ev, { session_id: id, seq: head(s, id).seq - 1, epoch: head(s, id).epoch, payload: { title: 'Renamed' } });
  // Same batch: the broadcast frame follows the session frame, so its arrival proves the session frame was not sent.
  const meta = await other.waitFor((f) => f.type === 'session.meta.updated');
  t.like(meta, { session_id: id, seq: head(s, id).seq, epoch: head(s, id).epoch, payload: { session_id: id, sessionId: id, title: 'Renamed', patch: { title: 'Renamed', isCustomTitle: true } } });
  t.false(other.frames.some((f) => f.type === 'session.profile_updated'));

  await appendEvents(s, id, 3, (i) => (i === 2 ? { title: 'none' } : { agent_id: `a${i + 1}`, title: `a${i + 1}` }), true);
  await sub.waitFor((f) => f.payload?.title === 'none');
  await filtered.waitFor((f) => f.payload?.title === 'none');
  const titles = eventsOf(filtered, id).map((f) => f.payload.title);
  t.true(titles.includes('a1'));
  t.false(titles.includes('a2'));
});

test('unsubscribe stops session events', async (t) => {
  const s = await serverFor(t);
  const id = await newSession(s);
  const c = await client(t, s);
  await c.request('subscribe', { session_ids: [id] });
  t.deepEqual((await c.request('unsubscribe', { session_ids: [id] })).payload, { unsubscribed: [id] });
  await appendEvents(s, id, 1);
  await appendUnchecked(s, [{ stream: '__global__', type: 'event.config.changed', payload: { changedFields: [], config: {} } }]);
  await c.waitFor((f) => f.type === 'event.config.changed');
  t.is(eventsOf(c, id).length, 0);
});

test('internal global-stream events are not sent', async (t) => {
  const s = await serverFor(t);
  const c = await client(t, s);
  await appendUnchecked(s, [{ stream: '__global__', type: 'workspace.trust_changed', payload: {} }]);
  await appendUnchecked(s, [{ stream: '__global__', type: 'event.config.changed', payload: { changedFields: ['x'], config: {} } }]);
  await c.waitFor((f) => f.type === 'event.config.changed');
  t.false(c.frames.some((f) => f.type === 'workspace.trust_changed'));
});

test('replay after reconnect: every missed durable event once, in order, before live ones', async (t) => {
  const s = await serverFor(t);
  const id = await newSession(s);
  const first = await s.ws();
  await first.request('subscribe', { session_ids: [id] });
  await appendEvents(s, id, 2);
  const seen = await first.waitFor((f) => f.session_id === id && f.seq === head(s, id).seq);
  await first.close();
  await appendEvents(s, id, 300);
  const c = await client(t, s);
  const sent = c.request('subscribe', { session_ids: [id], cursors: { [id]: { seq: seen.seq, epoch: seen.epoch } } }, 'r1');
  // Commits racing the replay read must be neither lost nor duplicated.
  const racing = Array.from({ length: 20 }, () => appendEvents(s, id, 5));
  const ack = await sent;
  t.is(ack.code, 0);
  await Promise.all(racing);
  const end = head(s, id).seq;
  await c.waitFor((f) => f.session_id === id && f.seq === end);
  const seqs = eventsOf(c, id).map((f) => f.seq);
  t.deepEqual(seqs, Array.from({ length: end - seen.seq }, (_, i) => seen.seq + 1 + i));
  t.true(c.frames.indexOf(ack) < c.frames.findIndex((f) => f.session_id === id), 'ack first, then replay');
});

test('resync_required: more than 1000 behind, stale epoch, past the head; still subscribed live', async (t) => {
  const s = await serverFor(t);
  const id = await newSession(s);
  await appendEvents(s, id, 1100);
  const { seq, epoch } = head(s, id);
  const c = await client(t, s);
  const ack = await c.request('subscribe', { session_ids: [id], cursors: { [id]: { seq: 1, epoch } } });
  t.is(ack.code, 0);
  const resync = await c.waitFor((f) => f.type === 'resync_required');
  t.deepEqual(resync.payload, { session_id: id, reason: 'too_far_behind', head_seq: seq, current_seq: seq, epoch, max_event_buffer_size: 1000 });
  t.is(resync.session_id, id);
  t.is(eventsOf(c, id).length, 0, 'nothing replayed');
  await appendEvents(s, id, 1);
  t.is((await c.waitFor((f) => f.session_id === id && f.seq === seq + 1)).type, 'session.profile_updated');

  const d = await client(t, s);
  await d.request('subscribe', { session_ids: [id], cursors: { [id]: { seq: seq - 5, epoch: '01STALEEPOCH0000000000000' } } });
  t.is((await d.waitFor((f) => f.type === 'resync_required')).payload.reason, 'epoch_mismatch');
  const e = await client(t, s);
  await e.request('subscribe', { session_ids: [id], cursors: { [id]: { seq: seq + 50, epoch } } });
  t.is((await e.waitFor((f) => f.type === 'resync_required')).payload.reason, 'invalid_cursor');
});

test('cursor at the head replays nothing and goes live', async (t) => {
  const s = await serverFor(t);
  const id = await newSession(s);
  const { seq, epoch } = head(s, id);
  const c = await client(t, s);
  await c.request('subscribe', { session_ids: [id], cursors: { [id]: { seq, epoch } } });
  await appendEvents(s, id, 1);
  await c.waitFor((f) => f.session_id === id);
  t.deepEqual(eventsOf(c, id).map((f) => f.seq), [seq + 1]);
});

test('volatile frames reach subscribers with volatile:true, offset and the head seq', async (t) => {
  const s = await serverFor(t);
  const id = await newSession(s);
  const { hub, base } = await extraHub(t, s, new AuthBan(false));
  const c = await connectWs(base, undefined, auth);
  const outsider = await connectWs(base, undefined, auth);
  t.teardown(() => Promise.all([c.close(), outsider.close()]));
  await c.request('subscribe', { session_ids: [id] });
  hub.publishVolatile(id, 'assistant.delta', { text: 'hi' }, 2);
  const f = await c.waitFor((x) => x.type === 'assistant.delta');
  t.like(f, { volatile: true, offset: 2, seq: head(s, id).seq, session_id: id, payload: { text: 'hi' } });
  t.false('epoch' in f);
  await outsider.request('client_hello', { client_id: 'x' });
  t.false(outsider.frames.some((x) => x.type === 'assistant.delta'));
  t.is((await s.eventsOf(id)).filter((e) => e.type === 'assistant.delta').length, 0, 'never journaled');
});

test('server shutdown closes sockets with 1001', async (t) => {
  const s = await startTestServer();
  const c = await s.ws();
  const code = closeCode(c);
  await s.stop();
  t.is(await code, 1001);
});

test('/asyncapi.json documents the frames and the global events', async (t) => {
  const s = await serverFor(t);
  const doc = (await s.req('GET', '/asyncapi.json')).body as any;
  t.is(doc.asyncapi, '3.0.0');
  t.is(doc.channels.events.address, '/api/v1/ws');
  for (const name of ['server_hello', 'ack', 'subscribe', 'resync_required', 'volatile_event', 'event.session.archived', 'event.config.changed', 'goal.updated']) {
    t.truthy(doc.components.messages[name], name);
  }
  t.is(doc.components.messages['event.session.archived'].payload.properties.session_id.const, '__global__');
  t.regex(doc.info.description, /1013/);
});
