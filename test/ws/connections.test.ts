import test from 'ava';
import { scratchDir } from '../helpers/fs.ts';
import { connectWs, serverFor, TEST_TOKEN } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

test('GET /api/v1/connections lists live connections oldest first, with subscriptions and has_client_hello', async (t) => {
  const s = await serverFor(t);
  const dir = await scratchDir(t, 'svc-code-conn-');
  const session = (await s.post('/api/v1/sessions', { metadata: { cwd: dir } })).data.id;

  const empty = await s.get('/api/v1/connections');
  t.is(empty.code, 0);
  t.deepEqual(empty.data, { connections: [] });

  const first = await connectWs(s.baseUrl, undefined, { Authorization: `Bearer ${TEST_TOKEN}`, 'User-Agent': 'conn-test/1.0' });
  t.teardown(() => first.close());
  const second = await s.ws();
  t.teardown(() => second.close());
  t.is((await first.request('client_hello', { client_id: 'ide-1' })).code, 0);
  t.is((await first.request('subscribe', { session_ids: [session] })).code, 0);

  const { data } = await s.get('/api/v1/connections');
  t.is(data.connections.length, 2);
  const [a, b] = data.connections;
  t.is(a.id, first.frames[0].payload.ws_connection_id);
  t.is(b.id, second.frames[0].payload.ws_connection_id);
  t.like(a, { user_agent: 'conn-test/1.0', has_client_hello: true, subscriptions: [session] });
  t.regex(a.remote_address, /127\.0\.0\.1/);
  t.truthy(Date.parse(a.connected_at));
  t.true(Date.parse(a.connected_at) <= Date.parse(b.connected_at));
  t.like(b, { user_agent: null, has_client_hello: false, subscriptions: [] });

  await first.request('unsubscribe', { session_ids: [session] });
  await first.close();
  // The server drops a connection when its socket closes, just after the client sees the close handshake.
  let ids: string[] = [];
  await until(async () => {
    ids = (await s.get('/api/v1/connections')).data.connections.map((c: { id: string }) => c.id);
    return ids.length === 1;
  }, 2000).catch(() => undefined); // the assertion below reports a timeout
  t.deepEqual(ids, [b.id]);
});

test('GET /api/v1/connections needs the token', async (t) => {
  const s = await serverFor(t);
  const res = await fetch(`${s.baseUrl}/api/v1/connections`);
  t.is(res.status, 401);
  t.is((await res.json()).code, 40101);
});
