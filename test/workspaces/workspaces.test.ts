import test from 'ava';
import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { JournalEvent } from '../../journal/types.ts';
import { scratchDir } from '../helpers/fs.ts';
import { serverFor, type TestServer } from '../helpers/server.ts';

/** Events committed from now on. */
function committed(s: TestServer): JournalEvent[] {
  const seen = s.committed();
  return seen;
}

/** The server's clock set, so refreshed timestamps differ without sleeping. */
function fakeClock(s: TestServer) {
  s.clock.set('2030-01-01T00:00:00.000Z');
  return { get ms() { return s.clock.now().getTime(); }, tick(n = 1000) { s.clock.advance(n); } };
}

const fields = (body: any) => (body.details ?? []).map((d: any) => d.field);

test('register, list and the workspace object', async (t) => {
  const s = await serverFor(t);
  const root = await scratchDir(t);
  const r = await s.post('/api/v1/workspaces', { root, name: 'My Project' });
  t.is(r.code, 0);
  t.regex(r.data.id, /^wd_svc-code-ws-[a-z0-9-]+_[0-9a-f]{12}$/);
  t.deepEqual(Object.keys(r.data).sort(), ['created_at', 'id', 'last_opened_at', 'name', 'root', 'session_count']);
  t.is(r.data.root, root);
  t.is(r.data.name, 'My Project');
  t.is(r.data.session_count, 0);
  t.is(r.data.created_at, r.data.last_opened_at);

  const other = await scratchDir(t, 'svc-code-other-');
  const d = await s.post('/api/v1/workspaces', { root: other + '/' });
  t.is(d.data.root, other, 'trailing slash normalised');
  t.is(d.data.name, path.basename(other), 'default name is the base name');

  const list = await s.get('/api/v1/workspaces');
  t.is(list.code, 0);
  t.deepEqual(list.data.items.map((w: any) => w.id).sort(), [r.data.id, d.data.id].sort());
});

test('list order: most recently opened first, ties by id', async (t) => {
  const s = await serverFor(t);
  const clock = fakeClock(s);
  const [a, b, c] = [await scratchDir(t, 'a-'), await scratchDir(t, 'b-'), await scratchDir(t, 'c-')];
  const wa = (await s.post('/api/v1/workspaces', { root: a })).data;
  const wb = (await s.post('/api/v1/workspaces', { root: b })).data;
  const wc = (await s.post('/api/v1/workspaces', { root: c })).data;
  clock.tick();
  await s.post('/api/v1/workspaces', { root: a });
  const ids = (await s.get('/api/v1/workspaces')).data.items.map((w: any) => w.id);
  t.deepEqual(ids, [wa.id, ...[wb.id, wc.id].sort()]);
});

test('registration is idempotent on root: same id, name kept, last_opened_at refreshed, updated event', async (t) => {
  const s = await serverFor(t);
  const clock = fakeClock(s);
  const events = committed(s);
  const root = await scratchDir(t);
  const first = (await s.post('/api/v1/workspaces', { root, name: 'Original' })).data;
  clock.tick(5000);
  const again = await s.post('/api/v1/workspaces', { root: root + '/./', name: 'Ignored' });
  t.is(again.code, 0);
  t.is(again.data.id, first.id);
  t.is(again.data.name, 'Original');
  t.is(again.data.created_at, first.created_at);
  t.is(again.data.last_opened_at, new Date(clock.ms).toISOString());
  t.not(again.data.last_opened_at, first.last_opened_at);
  const types = events.filter((e) => e.stream === '__global__').map((e) => e.type);
  t.deepEqual(types, ['event.workspace.created', 'event.workspace.updated']);
  t.deepEqual(events[1].payload, again.data);
  t.is((await s.get('/api/v1/workspaces')).data.items.length, 1);
});

test('register: validation and missing directories', async (t) => {
  const s = await serverFor(t);
  const root = await scratchDir(t);
  const file = path.join(root, 'file.txt');
  await writeFile(file, 'x');

  const relative = await s.post('/api/v1/workspaces', { root: 'some/relative' });
  t.is(relative.code, 40001);
  t.deepEqual(fields(relative), ['root']);
  t.regex(relative.details[0].message, /absolute/);

  const missing = await s.post('/api/v1/workspaces', {});
  t.is(missing.code, 40001);
  t.deepEqual(fields(missing), ['root']);

  const notString = await s.post('/api/v1/workspaces', { root: 42 });
  t.is(notString.code, 40001);
  t.deepEqual(fields(notString), ['root']);

  const long = await s.post('/api/v1/workspaces', { root, name: 'x'.repeat(101) });
  t.is(long.code, 40001);
  t.deepEqual(fields(long), ['name']);
  const empty = await s.post('/api/v1/workspaces', { root, name: '' });
  t.is(empty.code, 40001);
  t.deepEqual(fields(empty), ['name']);
  const blank = await s.post('/api/v1/workspaces', { root, name: '   ' });
  t.is(blank.code, 40001);
  t.is((await s.post('/api/v1/workspaces', { root, name: 'x'.repeat(100) })).code, 0);

  const gone = await s.post('/api/v1/workspaces', { root: path.join(root, 'nope') });
  t.is(gone.code, 40409);
  t.is(gone.details.field, 'root');
  const isFile = await s.post('/api/v1/workspaces', { root: file });
  t.is(isFile.code, 40409);
  t.is((await s.get('/api/v1/workspaces')).data.items.length, 1, 'failed registrations left nothing');
});

test('PATCH renames; root never changes; errors', async (t) => {
  const s = await serverFor(t);
  const root = await scratchDir(t);
  const w = (await s.post('/api/v1/workspaces', { root })).data;
  const events = committed(s);
  const r = await s.req('PATCH', `/api/v1/workspaces/${w.id}`, { name: 'Renamed', root: '/elsewhere' });
  t.is(r.body.code, 0);
  t.deepEqual(r.body.data, { ...w, name: 'Renamed' });
  t.deepEqual(events.map((e) => e.type), ['event.workspace.updated']);
  t.is((await s.get('/api/v1/workspaces')).data.items[0].name, 'Renamed');
  // Re-registration keeps the new name.
  t.is((await s.post('/api/v1/workspaces', { root })).data.name, 'Renamed');

  const none = await s.req('PATCH', `/api/v1/workspaces/${w.id}`, {});
  t.is(none.body.code, 40001);
  t.deepEqual(fields(none.body), ['name']);
  const long = await s.req('PATCH', `/api/v1/workspaces/${w.id}`, { name: 'n'.repeat(101) });
  t.is(long.body.code, 40001);
  const empty = await s.req('PATCH', `/api/v1/workspaces/${w.id}`, { name: '' });
  t.is(empty.body.code, 40001);
  const unknown = await s.req('PATCH', '/api/v1/workspaces/wd_nope_000000000000', { name: 'x' });
  t.is(unknown.body.code, 40410);
});

test('session_count, delete unregisters only, re-register brings sessions back', async (t) => {
  const s = await serverFor(t);
  const root = await scratchDir(t);
  const w = (await s.post('/api/v1/workspaces', { root })).data;
  const s1 = (await s.post('/api/v1/sessions', { metadata: { cwd: root } })).data;
  const s2 = (await s.post('/api/v1/sessions', { metadata: { cwd: root } })).data;
  t.is(s1.workspace_id, w.id);
  t.is((await s.get('/api/v1/workspaces')).data.items[0].session_count, 2);

  await s.post(`/api/v1/workspaces/${w.id}/trust`);
  const events = committed(s);
  const del = await s.req('DELETE', `/api/v1/workspaces/${w.id}`);
  t.is(del.body.code, 0);
  t.deepEqual(del.body.data, { deleted: true });
  t.deepEqual(events.map((e) => [e.stream, e.type, e.payload]), [['__global__', 'event.workspace.deleted', { workspace_id: w.id, root }]]);
  t.deepEqual((await s.get('/api/v1/workspaces')).data.items, []);
  t.is((await s.get(`/api/v1/sessions/${s1.id}`)).code, 40401);
  t.is((await s.req('DELETE', `/api/v1/workspaces/${w.id}`)).body.code, 40410);
  await stat(root); // the directory itself is untouched

  const back = await s.post('/api/v1/workspaces', { root });
  t.is(back.data.id, w.id);
  t.is(back.data.session_count, 2);
  t.is((await s.get(`/api/v1/sessions/${s2.id}`)).data.id, s2.id);
  t.deepEqual((await s.get(`/api/v1/workspaces/${w.id}/trust`)).data, { trusted: false }, 'trust is forgotten with the registration');
});

test('trust round trip and trust_changed events', async (t) => {
  const s = await serverFor(t);
  const root = await scratchDir(t);
  const w = (await s.post('/api/v1/workspaces', { root })).data;
  const events = committed(s);
  t.deepEqual((await s.get(`/api/v1/workspaces/${w.id}/trust`)).data, { trusted: false });
  t.deepEqual((await s.post(`/api/v1/workspaces/${w.id}/trust`)).data, { trusted: true });
  t.deepEqual((await s.post(`/api/v1/workspaces/${w.id}/trust`)).data, { trusted: true });
  t.deepEqual((await s.get(`/api/v1/workspaces/${w.id}/trust`)).data, { trusted: true });
  t.deepEqual((await s.post(`/api/v1/workspaces/${w.id}/untrust`)).data, { trusted: false });
  t.deepEqual((await s.get(`/api/v1/workspaces/${w.id}/trust`)).data, { trusted: false });
  t.deepEqual(
    events.map((e) => [e.stream, e.type, e.payload]),
    [
      ['__global__', 'workspace.trust_changed', { workspace_id: w.id, trusted: true }],
      ['__global__', 'workspace.trust_changed', { workspace_id: w.id, trusted: false }],
    ],
    'one event per actual change',
  );
  await s.post(`/api/v1/workspaces/${w.id}/trust`);
  const s2 = await s.restart();
  t.teardown(() => s2.stop());
  t.deepEqual((await s2.get(`/api/v1/workspaces/${w.id}/trust`)).data, { trusted: true }, 'trust survives a restart');
  for (const [m, p] of [['GET', 'trust'], ['POST', 'trust'], ['POST', 'untrust']]) {
    t.is((await s2.req(m, `/api/v1/workspaces/wd_nope_000000000000/${p}`)).body.code, 40410, `${m} ${p}`);
  }
});
