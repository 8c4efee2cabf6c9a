import test from 'ava';
import { SessionEvents } from '../../protocol/events/types.ts';
import { tempDir } from '../helpers/fs.ts';
import { api, killed, spawnDaemon } from '../helpers/process.ts';
import { startTestServer, tempHome } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

test('kill -9 during a burst of appends loses no acknowledged event; seq continues after restart', async (t) => {
  const home = await tempHome();
  const cwd = await tempDir();
  const daemon = await spawnDaemon(home);
  t.teardown(() => killed(daemon.child, 'SIGKILL'));
  const created = await api(daemon.baseUrl, 'POST', '/api/v1/sessions', { metadata: { cwd } });
  t.is(created.code, 0);
  const id = created.data.id;
  const acked: string[] = [];
  let stop = false;
  // Four concurrent writers, each appending profile updates until the process dies.
  const writers = Array.from({ length: 4 }, (_, w) => (async () => {
    for (let i = 0; !stop; i++) {
      const title = `w${w}-${i}`;
      try {
        const r = await api(daemon.baseUrl, 'POST', `/api/v1/sessions/${id}/profile`, { title });
        if (r.code === 0) acked.push(title);
      } catch {
        return;
      }
    }
  })());
  await until(() => acked.length >= 200, 50_000, '200 acknowledged appends');
  await killed(daemon.child, 'SIGKILL');
  stop = true;
  await Promise.all(writers);

  const s = await startTestServer({ home });
  t.teardown(() => s.stop());
  const events = await s.server.services.journal.readRange(id, 1);
  const titles = new Set(events.filter((e) => e.type === SessionEvents.profileUpdated).map((e) => (e.payload as { title: string }).title));
  const lost = acked.filter((x) => !titles.has(x));
  t.deepEqual(lost, [], 'every acknowledged update is in the journal');
  events.forEach((e, i) => t.is(e.seq, i + 1));
  const head = s.server.services.journal.head(id)!;
  t.is(head.seq, events.length);
  const after = await s.post(`/api/v1/sessions/${id}/profile`, { title: 'after-restart' });
  t.is(after.code, 0);
  const [last] = await s.server.services.journal.readRange(id, head.seq + 1);
  t.is(last.seq, head.seq + 1);
  t.is(last.epoch, head.epoch);
  t.is((await s.get(`/api/v1/sessions/${id}`)).data.title, 'after-restart');
});

test('SIGTERM shuts down cleanly and removes the instance registration', async (t) => {
  const home = await tempHome();
  const daemon = await spawnDaemon(home);
  t.teardown(() => killed(daemon.child, 'SIGKILL'));
  t.regex(daemon.stdout(), /access token: \S+/);
  const { readdir } = await import('node:fs/promises');
  const dir = `${home}/server/instances`;
  t.is((await readdir(dir)).length, 1);
  await killed(daemon.child, 'SIGTERM');
  t.is(daemon.child.exitCode, 0, `signal ${daemon.child.signalCode}; stderr tail: ${daemon.stderr().slice(-2000)}`);
  t.deepEqual(await readdir(dir), []);
});
