import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import type { Daemon } from './lib/daemon.ts';
import { chunkedAnswer, createSessions } from './lib/engine.ts';
import { startRemoteLlm } from './lib/fixture-remote.ts';
import { ApiClient, BENCH_TOKEN } from './lib/http.ts';
import { runBench, type Scope } from './lib/lifecycle.ts';
import { journalChoice, journalLabel, startNodes } from './lib/nodes.ts';
import { cpuMs, rssBreakdownMb, rssMb } from './lib/proc.ts';
import { intEnv, progress } from './lib/report.ts';
import { percentile, round } from './lib/stats.ts';
import { connectWs, type BenchWs } from './lib/ws-client.ts';

// Issue 13 item 6, sustained load: SESSIONS sessions prompting back to back with 300-token turns for SECONDS,
// SUBS subscribers per session (3 `subscribe`, 2 `subscribe_v2` {main: delta}), a healthz probe every 20 ms.
// Measures turns/s, healthz p50/p99, daemon RSS before and after, and sequence faults on every subscriber:
// durable frames must come with seq = last + 1 per session, transcript batches with seq = last + 1 per agent.

const SESSIONS = intEnv('BENCH_SESSIONS', 20);
const SUBS = 5;
const SECONDS = intEnv('BENCH_SECONDS', 60);
const TOKENS = 300;
const TARGET = { healthz_p99_ms: 100, rss_end_mb: 200, sequence_faults: 0 };
/** BENCH_HEAP_SNAPSHOT_DIR=<dir>: the daemon writes a heap snapshot there once the load has ended (compare two with bench/heap-diff.ts). */
const SNAPSHOT_DIR = process.env.BENCH_HEAP_SNAPSHOT_DIR;
/**
 * `--journal pg` (BENCH_JOURNAL=pg): the daemon on PostgreSQL; `--nodes 2`: two daemons on it, session i created on
 * node i mod 2 and prompted there, a healthz prober on each. BENCH_CROSS_SUBSCRIBERS=1: one legacy and one v2
 * subscriber of each session on the next node instead (its frames relayed across nodes).
 */
const JOURNAL = journalChoice();
const CROSS = process.env.BENCH_CROSS_SUBSCRIBERS === '1' && JOURNAL.nodes > 1;

/** SIGUSR2 makes the daemon (started with --heapsnapshot-signal) write a snapshot into `dir`; waits until the file stops growing. */
async function heapSnapshot(pid: number, dir: string): Promise<string> {
  const before = new Set(await readdir(dir));
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 1200; i++) {
    await new Promise((ok) => setTimeout(ok, 250));
    const file = (await readdir(dir)).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    if (!file) continue;
    const full = path.join(dir, file);
    const s1 = (await stat(full)).size;
    await new Promise((ok) => setTimeout(ok, 500));
    if (s1 > 0 && (await stat(full)).size === s1) return full;
  }
  throw new Error('no heap snapshot written');
}

interface Faults { gaps: number; duplicates: number; frames: number; examples: string[] }

/** Checks each durable frame (legacy) or transcript batch (v2) against the last seq seen on this subscriber. */
function watch(ws: BenchWs, sid: string, v2: boolean, faults: Faults, onTurnEnded?: (sid: string) => void): void {
  const last = new Map<string, number>();
  ws.onFrame = (f) => {
    if (f.type === 'turn.ended') onTurnEnded?.(f.session_id);
    // Only the subscribed session: its broadcast events (event.session.work_changed, ...) reach every connection
    // stamped with its seq (spec/clients.md E5), so another session's connection sees them with gaps by design.
    if (f.session_id !== sid) return;
    const key = v2 ? (f.type === 'transcript.ops' || f.type === 'transcript.reset' ? `${f.session_id}|${f.payload.agent_id}` : undefined)
      : typeof f.seq === 'number' && !f.volatile && f.session_id !== '__global__' ? f.session_id : undefined;
    if (!key) return;
    faults.frames += 1;
    const seq = v2 ? f.payload.seq : f.seq;
    const prev = last.get(key);
    if (f.type !== 'transcript.reset' && prev !== undefined) {
      if (seq <= prev) faults.duplicates += 1;
      else if (seq !== prev + 1) faults.gaps += 1;
      if (seq !== prev + 1 && faults.examples.length < 5) faults.examples.push(`${v2 ? 'v2' : 'legacy'} ${f.type} ${key}: ${prev} -> ${seq}`);
    }
    last.set(key, seq);
  };
}

/** Where the RSS is (GET /api/v1/debug/memory): the V8 heap of the main thread, or outside it (workers, LevelDB, buffers, malloc). */
async function debugMemory(baseUrl: string) {
  // A connection of its own: the load's keep-alive sockets may have sat idle past the server's keep-alive timeout.
  const client = new ApiClient(baseUrl, undefined, 1);
  const mem = await client.request('GET', '/api/v1/debug/memory').then((r) => r.body?.data, () => undefined).finally(() => client.close());
  const mb = (n: number) => round(n / 1024 / 1024);
  return mem ? {
    heap_used_mb: mb(mem.process.heapUsed), heap_total_mb: mb(mem.process.heapTotal), external_mb: mb(mem.process.external), array_buffers_mb: mb(mem.process.arrayBuffers),
    /** Per V8 space of the main thread: [committed, used] MB. */
    search: mem.search,
    spaces_mb: Object.fromEntries(mem.heap_spaces.filter((s: { size: number }) => s.size > 0).map((s: { name: string; size: number; used: number }) => [s.name, [mb(s.size), mb(s.used)]])),
  } : undefined;
}

/**
 * POST a prompt; once more when a kept-alive socket was closed by the server as the request went out ("socket hang up",
 * ECONNRESET): the server closes only idle sockets (keepAliveTimeout 5 s, reached when a turn takes that long on a loaded
 * VM). Runs failed in the load with it before. The server may still have read the request (a reset after it was read):
 * the session's user messages are checked for this prompt's text (unique per call) first, so it is never sent twice.
 */
async function prompt(load: ApiClient, sid: string, text: string) {
  const send = () => load.request('POST', `/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text }] });
  try {
    return await send();
  } catch (err) {
    if (!/socket hang up|ECONNRESET/.test(String((err as Error).message ?? err))) throw err;
    const seen = await load.request('GET', `/api/v1/sessions/${sid}/transcript/user-messages?agent_id=main`);
    if (seen.body?.code !== 0) throw err;
    // Accepted already: answer as the POST would have (the caller waits for its turn end).
    if (JSON.stringify(seen.body.data).includes(JSON.stringify(text))) return { status: 200, body: { code: 0, data: null } } as Awaited<ReturnType<typeof send>>;
    return send();
  }
}

function probe(baseUrl: string, agent: http.Agent): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = http.get(`${baseUrl}/api/v1/healthz`, { agent, headers: { Authorization: `Bearer ${BENCH_TOKEN}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(performance.now() - t0));
    });
    req.on('error', () => resolve(NaN));
  });
}

/** A healthz probe every 20 ms on one keep-alive connection of its own, until `running()` turns false. */
async function probeLoop(scope: Scope, baseUrl: string, latencies: number[], running: () => boolean): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  scope.defer(() => agent.destroy());
  while (running()) {
    latencies.push(await probe(baseUrl, agent));
    await new Promise((ok) => setTimeout(ok, 20));
  }
}

function healthzSummary(latencies: number[]) {
  const sorted = latencies.filter(Number.isFinite).sort((a, b) => a - b);
  return { samples: sorted.length, p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted.at(-1) ?? NaN) };
}

/** One daemon of the run, the sessions created on it, and its healthz samples. */
interface LoadNode { daemon: Daemon; client: ApiClient; latencies: number[]; rss: number[]; cpu: number[] }

async function snapshotProc(node: LoadNode): Promise<void> {
  node.rss.push(await rssMb(node.daemon.pid));
  node.cpu.push(await cpuMs(node.daemon.pid));
}

/**
 * SUBS subscribers per session, each on a connection of its own to the session's node (with CROSS, subscribers 1
 * and 4 on the next node); the first one's `turn.ended` ends the session's wait.
 */
async function subscribeAll(scope: Scope, nodes: LoadNode[], ids: string[], faults: Faults, onTurnEnded: (sid: string) => void): Promise<void> {
  for (let i = 0; i < ids.length; i++) {
    for (let k = 0; k < SUBS; k++) {
      const node = nodes[(i + (CROSS && (k === 1 || k === 4) ? 1 : 0)) % nodes.length]!;
      const ws = await connectWs(node.daemon.baseUrl);
      scope.defer(() => ws.close());
      const v2 = k >= 3;
      watch(ws, ids[i]!, v2, faults, k === 0 ? onTurnEnded : undefined);
      const ack = v2
        ? await ws.request('subscribe_v2', { session_id: ids[i], transcript: { main: 'delta' } })
        : await ws.request('subscribe', { session_ids: [ids[i]] });
      if (ack.code !== 0) throw new Error(JSON.stringify(ack));
    }
  }
}

runBench('stream-load', (SECONDS + 120) * 1000, async (scope) => {
  const llm = await startRemoteLlm(scope);
  const nodeArgs = SNAPSHOT_DIR ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${SNAPSHOT_DIR}`] : [];
  const daemons = await startNodes(scope, 'stream-load', llm.url, JOURNAL, { nodeArgs, serveArgs: ['--debug-endpoints'] });
  const nodes: LoadNode[] = daemons.map((daemon) => ({ daemon, client: new ApiClient(daemon.baseUrl, undefined, SESSIONS + 4), latencies: [], rss: [], cpu: [] }));
  for (const n of nodes) scope.defer(() => n.client.close());
  const daemon = daemons[0]!;
  const reply = chunkedAnswer(TOKENS, 30, 1);
  // Session i lives on node i mod N: created there, prompted there.
  const cwd = await scope.tempDir('stream-load-ws');
  const created = await Promise.all(nodes.map((n, j) => createSessions(n.client, cwd, Math.ceil((SESSIONS - j) / nodes.length))));
  const ids = Array.from({ length: SESSIONS }, (_, i) => created[i % nodes.length]![Math.floor(i / nodes.length)]!);

  const faults: Faults = { gaps: 0, duplicates: 0, frames: 0, examples: [] };
  const waiters = new Map<string, () => void>();
  await subscribeAll(scope, nodes, ids, faults, (sid) => {
    const w = waiters.get(sid);
    waiters.delete(sid);
    w?.();
  });
  await llm.setScript(...Array.from({ length: SESSIONS * SECONDS * 10 }, () => reply));
  await Promise.all(nodes.map(snapshotProc));
  const memoryStart = await debugMemory(daemon.baseUrl);
  const rssBreakdownStart = await rssBreakdownMb(daemon.pid);

  // The load's own keep-alive sockets: the setup's may have sat idle past the server's keep-alive timeout
  // (a request racing the server's close then fails with "socket hang up").
  const loads = nodes.map((n) => new ApiClient(n.daemon.baseUrl, undefined, SESSIONS + 4));
  for (const l of loads) scope.defer(() => l.close());
  const end = performance.now() + SECONDS * 1000;
  let probing = true;
  const probers = nodes.map((n) => probeLoop(scope, n.daemon.baseUrl, n.latencies, () => probing));
  let turns = 0;
  let failures = 0;
  const t0 = performance.now();
  await Promise.all(ids.map(async (sid, i) => {
    const load = loads[i % nodes.length]!;
    let n = 0;
    while (performance.now() < end) {
      const done = new Promise<void>((ok) => waiters.set(sid, ok));
      const r = await prompt(load, sid, `load ${i} ${n++}`);
      if (r.body?.code !== 0) {
        failures += 1;
        waiters.delete(sid);
        continue;
      }
      await done;
      turns += 1;
    }
  }));
  const elapsed = (performance.now() - t0) / 1000;
  probing = false;
  await Promise.all(probers);
  // Let the last frames land before the counts are read.
  await new Promise((ok) => setTimeout(ok, 500));
  await Promise.all(nodes.map(snapshotProc));
  const rssBreakdown = await rssBreakdownMb(daemon.pid);
  if (process.env.BENCH_SMAPS_OUT) await writeFile(process.env.BENCH_SMAPS_OUT, await readFile(`/proc/${daemon.pid}/smaps`));
  const cpu = nodes.reduce((sum, n) => sum + n.cpu[1]! - n.cpu[0]!, 0);
  // Where the end RSS is (GET /api/v1/debug/memory): the V8 heap, or outside it (LevelDB, buffers, malloc).
  const memory = await debugMemory(daemon.baseUrl);
  const snapshot = SNAPSHOT_DIR ? await heapSnapshot(daemon.pid, SNAPSHOT_DIR) : undefined;
  const rssEnd = Math.max(...nodes.map((n) => n.rss[1]!));
  const byNode = nodes.map((n) => ({ healthz_ms: healthzSummary(n.latencies), rss_mb: { start: n.rss[0], end: n.rss[1] }, cpu_ms: round(n.cpu[1]! - n.cpu[0]!) }));
  const out = {
    turns, turns_per_s: round(turns / elapsed), failed_prompts: failures, daemon_cpu_ms_per_turn: round(cpu / Math.max(1, turns)),
    healthz_ms: healthzSummary(nodes.flatMap((n) => n.latencies)),
    rss_mb: { start: nodes[0]!.rss[0], end: nodes[0]!.rss[1] }, rss_breakdown_mb: { start: rssBreakdownStart, end: rssBreakdown }, memory_start: memoryStart, memory_end: memory, ...(snapshot ? { heap_snapshot: snapshot } : {}),
    ...(nodes.length > 1 ? { by_node: byNode } : {}),
    sequence: { frames_checked: faults.frames, gaps: faults.gaps, duplicates_or_reordered: faults.duplicates, examples: faults.examples },
  };
  progress(JSON.stringify({ ...out, memory_start: undefined, memory_end: undefined }));
  return {
    journal: { ...JOURNAL, label: journalLabel(JOURNAL), cross_node_subscribers: CROSS },
    description:
      `${SESSIONS} sessions prompting back to back for ${SECONDS} s, ${TOKENS}-token answers (30 SSE frames 1 ms apart) from the fixture LLM in its own ` +
      `process; daemon from dist/ (${journalLabel(JOURNAL)}${nodes.length > 1 ? ': session i created and prompted on node i mod N, daemon CPU summed, healthz pooled over the nodes (by_node: each), rss_mb and memory of the first node' : ''}); ` +
      `${SUBS} WS subscribers per session (3 subscribe, 2 subscribe_v2 {main: delta}), one connection each${CROSS ? ' (one of each kind on the next node)' : ''}; GET /api/v1/healthz ` +
      'every 20 ms on one keep-alive connection per node. Sequence: every durable frame of a legacy subscriber must have seq = last + 1 for its session, every ' +
      'transcript batch seq = last + 1 for its agent.',
    target: TARGET,
    ...out,
    pass: out.healthz_ms.p99 < TARGET.healthz_p99_ms && rssEnd < TARGET.rss_end_mb && faults.gaps + faults.duplicates === 0,
  };
});
