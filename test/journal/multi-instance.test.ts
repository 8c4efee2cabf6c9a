import { mkdir, readdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import test from 'ava';
import { tempDir } from '../helpers/fs.ts';
import { startTestServer, tempHome, type TestServer } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

process.env.SVC_CODE_RECONCILE_INTERVAL_MS = '100';

const listIds = async (s: TestServer) => ((await s.get('/api/v1/sessions')).data.items as { id: string }[]).map((x) => x.id);

test('two daemons on one home: both serve, see each other\'s sessions, refuse to diverge, and adopt on stop', async (t) => {
  const home = await tempHome();
  const cwd = await tempDir();
  const a = await startTestServer({ home, keepHome: true });
  const b = await startTestServer({ home, keepHome: true });
  t.teardown(async () => {
    await a.stop();
    await b.stop();
  });
  t.is((await readdir(path.join(home, 'db'), { withFileTypes: true })).filter((e) => e.isDirectory()).length, 2);
  const inA = (await a.post('/api/v1/sessions', { metadata: { cwd }, title: 'from A' })).data;
  const inB = (await b.post('/api/v1/sessions', { metadata: { cwd }, title: 'from B' })).data;

  await until(async () => ((await listIds(a)).includes(inB.id) ? true : undefined));
  await until(async () => ((await listIds(b)).includes(inA.id) ? true : undefined));
  t.is((await a.get(`/api/v1/sessions/${inB.id}`)).data.title, 'from B');

  const refused = await a.post(`/api/v1/sessions/${inB.id}/profile`, { title: 'diverge' });
  t.is(refused.code, 40901);
  t.is(refused.details.reason, 'held_by_other_instance');
  t.is(refused.details.base_url, b.baseUrl);
  t.is((await a.post(`/api/v1/sessions/${inB.id}:archive`)).code, 40901);
  t.is((await b.get(`/api/v1/sessions/${inB.id}`)).data.title, 'from B');

  // A slot's search index sits in <home>/search/<slot id> (written once the index holds messages: planted here).
  const dirsOf = async (sub: string) => (await readdir(path.join(home, sub), { withFileTypes: true }).catch(() => [])).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  for (const slot of await dirsOf('db')) await mkdir(path.join(home, 'search', slot, 'planted'), { recursive: true });
  await b.server.close();
  await until(async () => ((await a.post(`/api/v1/sessions/${inB.id}/profile`, { title: 'adopted' })).code === 0 ? true : undefined));
  t.is((await a.get(`/api/v1/sessions/${inB.id}`)).data.title, 'adopted');
  // The adopted slot is deleted right after its streams are copied (the copy is what made the update possible).
  const slotDirs = async () => (await readdir(path.join(home, 'db'), { withFileTypes: true })).filter((e) => e.isDirectory()).length;
  t.is(await until(async () => ((await slotDirs()) === 1 ? 1 : undefined)), 1);
  // ... and so is its search index (the adopted streams are indexed by a's own index); a's stays.
  const slots = await dirsOf('db');
  t.deepEqual(await until(async () => ((await dirsOf('search')).length === 1 ? dirsOf('search') : undefined)), slots);
  const events = await a.eventsOf(inB.id);
  t.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1));
});

test('a second daemon asked for a taken port comes up on the next one', async (t) => {
  const port = await new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (probe.address() as net.AddressInfo).port;
      probe.close(() => resolve(p));
    });
  });
  const home = await tempHome();
  const a = await startTestServer({ home, keepHome: true, options: { port } });
  const b = await startTestServer({ home, keepHome: true, options: { port } });
  t.teardown(async () => {
    await a.stop();
    await b.stop();
  });
  t.is(a.server.port, port);
  t.is(b.server.port, port + 1);
  t.is((await b.get('/api/v1/meta')).code, 0);
  const instances = await readdir(path.join(home, 'server', 'instances'));
  t.is(instances.length, 2);
});
