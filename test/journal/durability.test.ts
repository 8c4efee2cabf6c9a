import test from 'ava';
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
  const events = await s.eventsOf(id);
  const titles = new Set(events.filter((e) => e.type === 'session.profile_updated').map((e) => (e.payload as { title: string }).title));
  const lost = acked.filter((x) => !titles.has(x));
  t.deepEqual(lost, [], 'every acknowledged update is in the journal');
  events.forEach((e, i) => t.is(e.seq, i + 1));
  const head = s.journal.head(id)!;
  t.is(head.seq, events.length);
  const after = await s.post(`/api/v1/sessions/${id}/profile`, { title: 'after-restart' });
  t.is(after.code, 0);
  const [last] = await s.eventsOf(id, head.seq + 1);
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

test('SIGTERM during start-up still shuts down cleanly once started (the handler is in before the home is touched)', async (t) => {
  const { spawn } = await import('node:child_process');
  const { readdir } = await import('node:fs/promises');
  const { daemonEnv, ROOT } = await import('../helpers/built.ts');
  const path = await import('node:path');
  const home = await tempHome();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'serve', '--port', '0'], {
    cwd: ROOT, env: daemonEnv(home), stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => killed(child, 'SIGKILL'));
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  // The first thing the daemon writes into its home comes from startServer, after the signal handlers are in.
  const entries = async () => (await readdir(home).catch(() => [])).length;
  await until(async () => (await entries()) > 0, 90_000, 'the daemon to touch its home');
  await killed(child, 'SIGTERM');
  t.is(child.exitCode, 0, `signal ${child.signalCode}; output: ${out.slice(-2000)}`);
  t.deepEqual(await readdir(path.join(home, 'server', 'instances')).catch(() => []), []);
});
