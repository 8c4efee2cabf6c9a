import test from 'ava';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT, daemonEnv } from '../helpers/built.ts';
import { exportZip, recordSession } from '../helpers/archive.ts';
import { startTestServer, tempHome } from '../helpers/server.ts';

const run = promisify(execFile);

/** Runs `svc-code <args>` from the sources against `home`. */
function cli(home: string, args: string[]) {
  return run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), ...args], { env: daemonEnv(home), cwd: ROOT, maxBuffer: 64 * 1024 * 1024 })
    .then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }), (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }));
}

test('svc-code import, then journal dump and reindex on the home, offline', async (t) => {
  t.timeout(180_000); // eight CLI runs, each a node start with tsx
  const r = await recordSession(t);
  const zipFile = path.join(await tempHome(), 'export.zip');
  await writeFile(zipFile, await exportZip(r.s, r.sid));
  const home = await tempHome();

  const imported = await cli(home, ['import', zipFile]);
  t.is(imported.code, 0, imported.stderr);
  t.like(JSON.parse(imported.stdout), { original_id: r.sid, id_changed: false });

  const origin = await r.s.eventsOf(r.sid);
  const dump = await cli(home, ['journal', 'dump', r.sid]);
  t.is(dump.code, 0, dump.stderr);
  const lines = dump.stdout.trim().split('\n').map((l) => JSON.parse(l));
  t.deepEqual(lines, origin.map((e) => ({ seq: e.seq, epoch: e.epoch, type: e.type, ts: e.ts, payload: e.payload })));
  const tail = await cli(home, ['journal', 'dump', r.sid, '--after-seq', String(origin.length - 3)]);
  t.deepEqual(tail.stdout.trim().split('\n').map((l) => JSON.parse(l).seq), [origin.length - 2, origin.length - 1, origin.length]);
  t.is((await cli(home, ['journal', 'dump', 'session_nope'])).code, 1);
  t.is((await cli(home, ['journal', 'dump', r.sid, '--after-seq', 'abc'])).code, 2);

  const reindex = await cli(home, ['reindex']);
  t.is(reindex.code, 0, reindex.stderr);
  const report = JSON.parse(reindex.stdout);
  t.true(report.slots.some((s: { projections: string[] }) => s.projections.includes('messages')));

  // The home serves the imported session after the offline rebuild.
  const s = await startTestServer({ home });
  t.teardown(() => s.stop());
  const a = (await r.s.get(`/api/v1/sessions/${r.sid}/messages?page_size=100`)).data;
  t.deepEqual((await s.get(`/api/v1/sessions/${r.sid}/messages?page_size=100`)).data, a);
  // The offline import registered the session and its workspace as the route does.
  const origin1 = (await r.s.get(`/api/v1/sessions/${r.sid}`)).data;
  t.like((await s.get(`/api/v1/sessions/${r.sid}`)).data, { id: r.sid, workspace_id: origin1.workspace_id, cwd: origin1.cwd, created_at: origin1.created_at });
  t.true((await s.get('/api/v1/workspaces')).data.items.some((w: { id: string }) => w.id === origin1.workspace_id));
  // While a daemon holds the slot: dump goes through its export; reindex refuses.
  const live = await cli(home, ['journal', 'dump', r.sid, '--after-seq', String(origin.length - 1)]);
  t.is(live.code, 0, live.stderr);
  t.is(JSON.parse(live.stdout.trim()).seq, origin.length);
  t.is((await cli(home, ['reindex'])).code, 1);
});
