import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { startFixtureLlm, type StreamReply } from '../fixtures/llm/index.ts';
import { startEmbeddedPostgres } from '../test/helpers/pg-server.ts';
import { startDaemon } from './lib/daemon.ts';
import { engineConfig } from './lib/engine.ts';
import { ApiClient } from './lib/http.ts';
import { runBench, type Scope } from './lib/lifecycle.ts';
import { intEnv, progress } from './lib/report.ts';
import { median, summarize } from './lib/stats.ts';

// Issue 28: takeover time after kill -9 (docs/scale-out.md "Leases"). Two daemons from dist/ (as `npm start` runs
// them) on one PostgreSQL database; node A runs a turn whose Bash call holds; A is killed with SIGKILL; the time
// is measured from the kill to the moment node B reports the turn ended (its `turn.ended`, journaled by B's
// takeover, visible in B's GET /sessions/{id} as `last_turn_reason: failed`). Default lease time (10 s): the
// expected takeover is at most the lease time plus a second (less by the time since A last renewed). `node --import tsx bench/takeover.ts`;
// BENCH_TAKEOVER_RUNS (default 5), SVC_CODE_LEASE_TTL_MS passed through; SVC_BENCH_PG_URL: a server to use instead
// of an embedded one.

const RUNS = intEnv('BENCH_TAKEOVER_RUNS', 5);
const LEASE_TTL_MS = process.env.SVC_CODE_LEASE_TTL_MS ?? '10000';

const heldStep: StreamReply = { events: [{ tool_call: { id: 'k1', name: 'Bash', args: { command: 'echo $$ > k.pid; while [ ! -f go ]; do sleep 0.05; done' } } }] };

async function poll<T>(what: string, fn: () => Promise<T | undefined>, limitMs = 60_000, everyMs = 20): Promise<T> {
  const end = performance.now() + limitMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (performance.now() > end) throw new Error(`${what}: not within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

async function freshDatabase(adminUrl: string, n: number): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const name = `takeover_${process.pid}_${n}`;
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();
}

/** One run: a fresh database, nodes A and B, a held turn on A, kill -9 of A; ms until B reports the turn ended. */
async function oneRun(scope: Scope, adminUrl: string, llmUrl: string, n: number): Promise<number> {
  const url = await freshDatabase(adminUrl, n);
  const node = async (id: string) => {
    const home = await scope.tempDir(`takeover-${id}`);
    await writeFile(path.join(home, 'config.toml'), `default_permission_mode = "yolo"\n${engineConfig(llmUrl)}`);
    const d = await startDaemon(scope, home, { SVC_CODE_JOURNAL_URL: url, SVC_CODE_NODE_ID: id, SVC_CODE_LEASE_TTL_MS: LEASE_TTL_MS });
    const client = new ApiClient(d.baseUrl);
    scope.defer(() => client.close());
    return { d, client };
  };
  const a = await node('node_a');
  const b = await node('node_b');
  const cwd = await scope.tempDir('takeover-cwd');
  const sid = (await a.client.request('POST', '/api/v1/sessions', { metadata: { cwd } })).body!.data.id as string;
  await a.client.request('POST', `/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: 'hold' }] });
  const pid = await poll('the held command', async () => Number(await readFile(path.join(cwd, 'k.pid'), 'utf8').catch(() => '0')) || undefined);
  a.d.child.kill('SIGKILL');
  const killedAt = performance.now();
  try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ }
  await poll('the takeover', async () => {
    const s = (await b.client.request('GET', `/api/v1/sessions/${sid}`)).body?.data;
    return s?.last_turn_reason === 'failed' ? true : undefined;
  }, 60_000);
  return performance.now() - killedAt;
}

runBench('takeover', 15 * 60_000, async (scope) => {
  const llm = await startFixtureLlm();
  scope.defer(() => llm.close());
  const server = process.env.SVC_BENCH_PG_URL ? undefined : await startEmbeddedPostgres([]);
  if (server) scope.defer(() => server.stop());
  const adminUrl = process.env.SVC_BENCH_PG_URL ?? server!.url('postgres');
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    llm.setScript(heldStep);
    const ms = await oneRun(scope, adminUrl, llm.url, i);
    progress(`takeover run ${i + 1}/${RUNS}: ${Math.round(ms)} ms`);
    samples.push(ms);
  }
  return { lease_ttl_ms: Number(LEASE_TTL_MS), runs: RUNS, takeover_median_ms: median(samples), takeover_ms: summarize(samples) };
});
