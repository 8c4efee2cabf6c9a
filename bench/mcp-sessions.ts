import { runBench } from './lib/lifecycle.ts';
import { rssMb, startMcpDaemon, stdioServer } from './lib/mcp.ts';
import { intEnv, progress } from './lib/report.ts';
import { median, round } from './lib/stats.ts';

const SESSIONS = intEnv('BENCH_SESSIONS', 20);
const SERVERS = 3;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

runBench('mcp-sessions', 4 * 60_000, async (scope) => {
  if (process.platform !== 'linux') throw new Error('mcp-sessions reads /proc: Linux only');
  const servers = Object.fromEntries(Array.from({ length: SERVERS }, (_, i) => [`s${i}`, stdioServer()]));
  const { server, api } = await startMcpDaemon(scope, servers);
  const { mcp } = server.parts;
  const root = await scope.tempDir('mcp-sessions-ws');
  const dirs = await scope.workspaceDirs(root, SESSIONS);
  const ids: string[] = [];
  for (const cwd of dirs) ids.push((await api('POST', '/api/v1/sessions', { metadata: { cwd } })).id);
  await sleep(1000);
  const before = await rssMb(process.pid);

  progress(`${SESSIONS} sessions loaded at once, ${SERVERS} stdio servers each`);
  const t0 = performance.now();
  const perSession = await Promise.all(ids.map(async (id) => {
    const s0 = performance.now();
    await api('GET', `/api/v1/sessions/${id}/status`);
    await mcp.ready(id);
    return performance.now() - s0;
  }));
  const allReadyMs = performance.now() - t0;
  const connected = (await Promise.all(ids.map((id) => mcp.servers(id)))).flat().filter((x) => x.status === 'connected').length;
  if (connected !== SESSIONS * SERVERS) throw new Error(`only ${connected} of ${SESSIONS * SERVERS} servers connected`);
  await sleep(2000);
  const daemonRss = await rssMb(process.pid);
  const pids = ids.flatMap((id) => mcp.pids(id));
  const childRss = await Promise.all(pids.map(rssMb));
  const children = childRss.reduce((a, b) => a + b, 0);
  progress(`all ${connected} connected in ${Math.round(allReadyMs)} ms; daemon RSS ${before} -> ${daemonRss} MB; children ${round(children)} MB total`);

  const s0 = performance.now();
  await Promise.all(ids.map((id) => mcp.unloaded(id)));
  const stopMs = performance.now() - s0;
  const orphans = pids.filter((p) => { try { process.kill(p, 0); return true; } catch { return false; } });
  return {
    description: `${SESSIONS} sessions whose runtimes load at once (GET /status on each, then the servers' start as on a first turn), each starting ${SERVERS} stdio fixture servers `
      + '(node, the SDK); start = from the first GET to every server connected with its tools listed; RSS of the daemon process (in-process, '
      + 'measured before and after) and of the children; stop = unloading every session\'s servers.',
    sessions: SESSIONS,
    servers_per_session: SERVERS,
    start_all_ms: Math.round(allReadyMs),
    start_per_session_p50_ms: Math.round(median(perSession)),
    daemon_rss_before_mb: before,
    daemon_rss_after_mb: daemonRss,
    daemon_rss_delta_mb: round(daemonRss - before),
    children: pids.length,
    children_rss_total_mb: round(children),
    child_rss_p50_mb: round(median(childRss)),
    stop_all_ms: Math.round(stopMs),
    orphans_after_stop: orphans.length,
  };
});
