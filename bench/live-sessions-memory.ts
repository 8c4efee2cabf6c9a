import { readFile } from 'node:fs/promises';
import { scripts } from '../fixtures/llm/index.ts';
import { createSessions, startEngineDaemon, TurnTimer } from './lib/engine.ts';
import { runBench } from './lib/lifecycle.ts';
import { runBounded } from './lib/pool.ts';
import { intEnv, progress } from './lib/report.ts';
import { connectWs } from './lib/ws-client.ts';

const SESSIONS = intEnv('BENCH_SESSIONS', 100);
/** Prompts in flight at once while the sessions are brought to life. */
const CONCURRENCY = 10;
const SETTLE_MS = 2_000;
/** When to re-read RSS after the last turn ended, in ms. */
const LATER_MS = [2_000, 10_000];
const TARGET_MB = 300;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** VmRSS and VmHWM (peak) of a process, in MB, from /proc/<pid>/status. */
async function memory(pid: number): Promise<{ rss_mb: number; peak_rss_mb: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  const mb = (x: number) => Math.round((x / 1024) * 10) / 10;
  return { rss_mb: mb(kb('VmRSS')), peak_rss_mb: mb(kb('VmHWM')) };
}

runBench('live-sessions-memory', 4 * 60_000, async (scope) => {
  if (process.platform !== 'linux') throw new Error('live-sessions-memory reads /proc/<pid>/status: Linux only');
  const { llm, daemon, client } = await startEngineDaemon(scope, 'live-mem');
  const cwd = await scope.tempDir('live-mem-ws');
  await sleep(SETTLE_MS);
  const idle = await memory(daemon.pid);

  progress(`creating ${SESSIONS} sessions`);
  const ids = await createSessions(client, cwd, SESSIONS);
  await sleep(SETTLE_MS);
  const beforePrompts = await memory(daemon.pid);

  progress(`one short prompt on each session, ${CONCURRENCY} at a time`);
  const ws = await connectWs(daemon.baseUrl);
  scope.defer(() => ws.close());
  const timer = new TurnTimer(ws, client);
  await timer.subscribe(ids);
  llm.setScript(...ids.map(() => scripts.helloText));
  await runBounded(ids.length, CONCURRENCY, async (i) => {
    const t = await timer.prompt(ids[i]!, `hello ${i}`);
    if (t.chars !== 'Hello, world'.length) throw new Error(`session ${ids[i]} streamed ${t.chars} chars`);
  });
  if (llm.requests.length !== SESSIONS) throw new Error(`fixture saw ${llm.requests.length} model requests, expected ${SESSIONS}`);
  const afterTurns = await memory(daemon.pid);
  // RSS moves for a few seconds after the burst (GC, heap shrinking): sample a window and judge by its highest reading.
  const later: Record<string, number> = {};
  let waited = 0;
  for (const at of LATER_MS) {
    await sleep(at - waited);
    waited = at;
    later[at] = (await memory(daemon.pid)).rss_mb;
  }
  const settled = Math.max(...Object.values(later));
  const { peak_rss_mb } = await memory(daemon.pid);
  return {
    description:
      'VmRSS (from /proc/<pid>/status) of a spawned `svc-code serve` daemon (built dist/) whose config points at the fixture LLM: ' +
      `idle, then with ${SESSIONS} sessions created, then after each of them ran one short prompt (a 3-delta answer) so its runtime ` +
      'is loaded and it sits idle; one WS connection subscribed to all of them stays open',
    target: { rss_mb_live_sessions: TARGET_MB },
    sessions: SESSIONS,
    idle: { note: `empty home, ${SETTLE_MS} ms after healthz`, ...idle },
    before_prompts: { note: `${SESSIONS} sessions created, no prompt yet, ${SETTLE_MS} ms later`, ...beforePrompts },
    live: {
      note: 'right after the last turn.ended, then re-read after the listed ms; settled = highest of the re-reads',
      rss_mb_after_turns: afterTurns.rss_mb,
      rss_mb_after_ms: later,
      settled_rss_mb: settled,
      peak_rss_mb,
    },
    pass: settled < TARGET_MB,
  };
});
