import test from 'ava';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { exportZip, recordSession } from '../helpers/archive.ts';
import { cli } from '../helpers/cli.ts';
import { BACKENDS, serveOptions } from '../helpers/journal.ts';
import { startTestServer, tempHome } from '../helpers/server.ts';

// The offline commands on both journal backends, same bodies: the home's LevelDB slots, or the PostgreSQL
// database named by SVC_CODE_JOURNAL_URL (a fresh one per test).
for (const backend of BACKENDS) {
  test(`[${backend}] svc-code import, then journal dump and reindex on the home, offline`, async (t) => {
    t.timeout(300_000); // eight CLI runs, each a node start with tsx
    const r = await recordSession(t);
    const zipFile = path.join(await tempHome(), 'export.zip');
    await writeFile(zipFile, await exportZip(r.s, r.sid));
    const home = await tempHome();
    const options = await serveOptions(backend);
    const env: Record<string, string> = options.journalUrl ? { SVC_CODE_JOURNAL_URL: options.journalUrl } : {};

    const imported = await cli(home, ['import', zipFile], env);
    t.is(imported.code, 0, imported.stderr);
    t.like(JSON.parse(imported.stdout), { original_id: r.sid, id_changed: false });

    const origin = await r.s.eventsOf(r.sid);
    const dump = await cli(home, ['journal', 'dump', r.sid], env);
    t.is(dump.code, 0, dump.stderr);
    const lines = dump.stdout.trim().split('\n').map((l) => JSON.parse(l));
    t.deepEqual(lines, origin.map((e) => ({ seq: e.seq, epoch: e.epoch, type: e.type, ts: e.ts, payload: e.payload })));
    const tail = await cli(home, ['journal', 'dump', r.sid, '--after-seq', String(origin.length - 3)], env);
    t.deepEqual(tail.stdout.trim().split('\n').map((l) => JSON.parse(l).seq), [origin.length - 2, origin.length - 1, origin.length]);
    t.is((await cli(home, ['journal', 'dump', 'session_nope'], env)).code, 1);
    t.is((await cli(home, ['journal', 'dump', r.sid, '--after-seq', 'abc'], env)).code, 2);

    const reindex = await cli(home, ['reindex'], env);
    t.is(reindex.code, 0, reindex.stderr);
    const report = JSON.parse(reindex.stdout);
    t.true(report.slots.some((s: { projections: string[] }) => s.projections.includes('messages')));

    // The home serves the imported session after the offline rebuild.
    const s = await startTestServer({ home, options });
    t.teardown(() => s.stop());
    const a = (await r.s.get(`/api/v1/sessions/${r.sid}/messages?page_size=100`)).data;
    t.deepEqual((await s.get(`/api/v1/sessions/${r.sid}/messages?page_size=100`)).data, a);
    // The offline import registered the session and its workspace as the route does.
    const origin1 = (await r.s.get(`/api/v1/sessions/${r.sid}`)).data;
    t.like((await s.get(`/api/v1/sessions/${r.sid}`)).data, { id: r.sid, workspace_id: origin1.workspace_id, cwd: origin1.cwd, created_at: origin1.created_at });
    t.true((await s.get('/api/v1/workspaces')).data.items.some((w: { id: string }) => w.id === origin1.workspace_id));
    // While a daemon runs: dump reads through its export (LevelDB) or the database; reindex refuses.
    const live = await cli(home, ['journal', 'dump', r.sid, '--after-seq', String(origin.length - 1)], env);
    t.is(live.code, 0, live.stderr);
    t.is(JSON.parse(live.stdout.trim()).seq, origin.length);
    t.is((await cli(home, ['reindex'], env)).code, 1);
  });
}
