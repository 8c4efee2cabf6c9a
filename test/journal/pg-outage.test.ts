import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { scripts, startFixtureLlm, type StreamReply } from '../../fixtures/llm/index.ts';
import { YOLO } from '../helpers/engine.ts';
import { tempDir } from '../helpers/fs.ts';
import { freshDatabase, sql } from '../helpers/pg.ts';
import { pgRelay } from '../helpers/pg-relay.ts';
import { api, killed, spawnDaemon } from '../helpers/process.ts';
import { pairingProblems, protocolConfig } from '../helpers/protocols.ts';
import { tempHome } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

// The shared database away for longer than the journal's write retry (docs/journal.md "The database going away"):
// the journal fails (50003), and `svc-code serve` starts again in place, on the same port, once the database answers.
// The start settles what the failed run left open, so the turn that was running is reported interrupted, not stuck.

/** A step whose command holds until the test lets go (its pid written first). */
const heldStep: StreamReply = {
  events: [{ tool_call: { id: 'k1', name: 'Bash', args: { command: 'echo $$ > k.pid; while [ ! -f go ]; do sleep 0.05; done' } } }],
};

const eventsOf = async (url: string, sid: string) => (await sql(url, 'SELECT data FROM journal_events WHERE stream = $1 ORDER BY seq', [sid])).rows.map((r) => r.data as { type: string; payload: any });

async function heldPid(t: ExecutionContext, cwd: string): Promise<number> {
  const pid = await until(async () => Number(await readFile(path.join(cwd, 'k.pid'), 'utf8').catch(() => '0')), 60_000, 'the command running');
  t.teardown(() => { try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ } });
  return pid;
}

test('the database away past the retry bound: writes answer 50003, then the daemon starts again on the same URL once it is back, the running turn reported interrupted', async (t) => {
  t.timeout(240_000, 'a daemon started from the sources, a database cut and restored, a start again');
  const url = await freshDatabase();
  const relay = await pgRelay(t, url);
  const llm = await startFixtureLlm();
  t.teardown(() => llm.close());
  const cwd = await tempDir();
  const home = await tempHome();
  await writeFile(path.join(home, 'config.toml'), protocolConfig(llm.url, 'messages_api', YOLO));
  const d = await spawnDaemon(home, ['--port', '0'], { SVC_CODE_JOURNAL_URL: relay.url, SVC_CODE_JOURNAL_RETRY_MS: '1500' });
  t.teardown(() => killed(d.child, 'SIGKILL'));
  const sid = (await api(d.baseUrl, 'POST', '/api/v1/sessions', { metadata: { cwd } })).data.id as string;
  llm.setScript(heldStep);
  t.is((await api(d.baseUrl, 'POST', `/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: 'go' }] })).code, 0);
  await heldPid(t, cwd);

  await relay.cut();
  const refused = await api(d.baseUrl, 'POST', `/api/v1/sessions/${sid}/profile`, { title: 'while the database is away' });
  t.like(refused, { code: 50003, details: { reason: 'journal_store_failed' } });
  // Down for a while: the first starts again fail (a connection refused), and are tried again later.
  await until(() => /could not start again yet/.test(d.stdout() + d.stderr()), 30_000, 'a start again tried while the database is away');
  await relay.restore();
  await until(() => d.stdout().includes(`svc-code started again on ${d.baseUrl}`), 90_000, 'started again on the same URL');

  // Writes work again, on the URL the clients know.
  const renamed = await api(d.baseUrl, 'POST', `/api/v1/sessions/${sid}/profile`, { title: 'after the outage' });
  t.is(renamed.code, 0, JSON.stringify(renamed));
  const events = await eventsOf(url, sid);
  const ended = events.find((e) => e.type === 'turn.ended');
  t.like(ended?.payload, { reason: 'failed', error: { kind: 'interrupted' } }, 'the turn the outage cut is reported interrupted');
  // Settled by the start again as a restart (the node kept its id, so its leases), not taken over after the lease time.
  t.notRegex(ended!.payload.error.message, /another node/);
  t.false(events.some((e) => e.type === 'session.profile_updated' && e.payload.title === 'while the database is away'), 'the refused write left nothing');

  // The next prompt runs on a history the provider accepts.
  llm.setScript(scripts.helloText);
  const before = llm.requests.length;
  t.is((await api(d.baseUrl, 'POST', `/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: 'after' }] })).code, 0);
  const done = await until(async () => (await eventsOf(url, sid)).filter((e) => e.type === 'turn.ended').at(1), 30_000, 'the next turn');
  t.is(done!.payload.reason, 'completed');
  t.is(llm.requests.length, before + 1);
  t.deepEqual(pairingProblems(llm.requests.at(-1)!), []);
});
