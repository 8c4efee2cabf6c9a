import test from 'ava';
import { serverFor, startTestServer } from '../helpers/server.ts';

test('healthz needs no token; meta reports every field', async (t) => {
  const s = await startTestServer({ options: { webTitle: 'My Daemon' } });
  t.teardown(() => s.stop());
  const health = await fetch(`${s.baseUrl}/api/v1/healthz`);
  t.is(health.status, 200);
  const body = await health.json();
  t.deepEqual(body.data, { ok: true });
  t.regex(body.request_id, /^[0-9A-HJKMNP-TV-Z]{26}$/);

  const meta = await s.get('/api/v1/meta');
  t.is(meta.code, 0);
  t.is(meta.msg, 'success');
  t.deepEqual(meta.data.capabilities, { websocket: true, file_upload: true, fs_query: true, mcp: true, tasks: true, terminal: true });
  t.is(meta.data.backend, 'v2');
  t.is(meta.data.web_title, 'My Daemon');
  t.is(meta.data.dangerous_bypass_auth, false);
  t.deepEqual(meta.data.open_in_apps, []);
  t.regex(meta.data.server_id, /^srv_/);
  t.truthy(Date.parse(meta.data.started_at));
  t.is(typeof meta.data.server_version, 'string');
  t.deepEqual(meta.data.features, []);
  t.is(typeof meta.data.experimental_flags, 'object');
});

test('request ids: a valid X-Request-Id is honored, an invalid one regenerated', async (t) => {
  const s = await serverFor(t);
  const good = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
  const r1 = await s.req('GET', '/api/v1/meta', undefined, { 'X-Request-Id': good });
  t.is(r1.body.request_id, good);
  t.is(r1.headers.get('x-request-id'), good);
  const r2 = await s.req('GET', '/api/v1/meta', undefined, { 'X-Request-Id': 'not-a-ulid' });
  t.not(r2.body.request_id, 'not-a-ulid');
  t.regex(r2.body.request_id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
});

test('debug endpoints exist only with --debug-endpoints and read the raw journal', async (t) => {
  const plain = await startTestServer();
  t.teardown(() => plain.stop());
  t.is((await plain.req('GET', '/api/v1/debug/streams')).status, 404);
  t.is((await plain.req('GET', '/api/v1/debug/memory')).status, 404);

  const s = await startTestServer({ options: { debugEndpoints: true } });
  t.teardown(() => s.stop());
  const { mkdtemp } = await import('node:fs/promises');
  const os = await import('node:os');
  const cwd = await mkdtemp(`${os.tmpdir()}/svc-dbg-`);
  const sess = (await s.post('/api/v1/sessions', { metadata: { cwd } })).data;
  const streams = (await s.get('/api/v1/debug/streams')).data.items;
  t.true(streams.some((x: any) => x.stream === sess.id && x.seq === 1));
  const events = (await s.get(`/api/v1/debug/streams/${sess.id}/events`)).data;
  t.is(events.items[0].type, 'session.created');
  t.false(events.has_more);
  t.is((await s.get('/api/v1/debug/streams/nope/events')).code, 40401);
  const mem = (await s.get('/api/v1/debug/memory')).data;
  t.true(mem.process.rss > 0 && mem.process.heapUsed > 0 && mem.heap.total_heap_size >= mem.process.heapUsed);
  t.true(mem.heap_spaces.some((x: any) => x.name === 'old_space' && x.used > 0));
  t.true(Array.isArray(mem.exec_argv) && mem.exec_argv.every((x: unknown) => typeof x === 'string'));
  t.is(typeof mem.live_transcripts.restores, 'number');
});
