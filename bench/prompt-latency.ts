import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import { answerText, chunkedAnswer, createSessions, directStream, TurnTimer, type Timing, type TurnTiming } from './lib/engine.ts';
import { startInProcessLlm, startRemoteLlm } from './lib/fixture-remote.ts';
import { ApiClient } from './lib/http.ts';
import { runBench, type Scope } from './lib/lifecycle.ts';
import { journalChoice, journalLabel, startNodes } from './lib/nodes.ts';
import { cpuMs } from './lib/proc.ts';
import { intEnv, progress } from './lib/report.ts';
import { median, percentile, round } from './lib/stats.ts';
import { connectWs } from './lib/ws-client.ts';

const TOKENS = 2_000;
/** The fixture's pace: 2,000 one-word tokens in CHUNKS SSE frames, DELAY_MS apart (about 100-150 ms in all). */
const CHUNKS = intEnv('BENCH_CHUNKS', 100);
const DELAY_MS = intEnv('BENCH_CHUNK_DELAY_MS', 1);
const RUNS = intEnv('BENCH_RUNS', 10);
const WARMUP = 2;
const CONCURRENT = 20;
const TARGET = { first_delta_overhead_ms: 5, turn_overhead_pct: 20 };
/** Half of what the best daemon of this kind takes today on this machine (issue 3). */
const AIM = { first_delta_ms: 40, turn_ms: 120 };
/** BENCH_FIXTURE_INPROC=1: the fixture on the benchmark's own event loop (the method before 2026-11-22 03:00). */
const FIXTURE_INPROC = process.env.BENCH_FIXTURE_INPROC === '1';
/** `--journal pg` (BENCH_JOURNAL=pg): the daemon on PostgreSQL; `--nodes 2`: two daemons on it, the prompts alternating between them. */
const JOURNAL = journalChoice();

interface RunStats {
  first_ms: { median: number; p95: number };
  last_ms: { median: number; p95: number };
}

/** One run's timings (one per session or stream): their median and p95. */
function runStats(ts: Timing[]): RunStats {
  const of = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return { median: median(s), p95: round(percentile(s, 95)) };
  };
  return { first_ms: of(ts.map((t) => t.first_ms)), last_ms: of(ts.map((t) => t.last_ms)) };
}

/** Median over runs of each run's median and p95, plus the spread of the run medians. */
function overRuns(runs: RunStats[]) {
  const pick = (f: (r: RunStats) => number) => median(runs.map(f));
  const range = (f: (r: RunStats) => number) => [round(Math.min(...runs.map(f))), round(Math.max(...runs.map(f)))];
  return {
    runs: runs.length,
    first_ms: pick((r) => r.first_ms.median), first_p95_ms: pick((r) => r.first_ms.p95), first_ms_range: range((r) => r.first_ms.median),
    last_ms: pick((r) => r.last_ms.median), last_p95_ms: pick((r) => r.last_ms.p95), last_ms_range: range((r) => r.last_ms.median),
  };
}

/**
 * WARMUP untimed rounds, then RUNS timed ones. A round is one run of `width` direct fixture
 * streams started at once, then one run of `width` daemon prompts: the two sides alternate, so
 * both see the same load on a shared machine.
 */
async function measure(width: number, prepare: () => Promise<void>, direct: () => Promise<Timing>, viaDaemon: () => Promise<TurnTiming>, cpu: () => Promise<number>) {
  let daemonCpu = 0;
  const fixture: RunStats[] = [];
  const daemon: RunStats[] = [];
  const samples: TurnTiming[][] = [];
  const paired: Array<{ first: number; last: number; pct: number }> = [];
  const all = <T>(one: () => Promise<T>) => Promise.all(Array.from({ length: width }, one));
  for (let r = -WARMUP; r < RUNS; r++) {
    await prepare();
    const f = runStats(await all(direct));
    await prepare();
    const cpu0 = await cpu();
    const ts = await all(viaDaemon);
    const cpu1 = await cpu();
    if (r < 0) continue;
    daemonCpu += cpu1 - cpu0;
    const d = runStats(ts);
    fixture.push(f);
    daemon.push(d);
    samples.push(ts);
    paired.push({ first: d.first_ms.median - f.first_ms.median, last: d.last_ms.median - f.last_ms.median, pct: (100 * (d.last_ms.median - f.last_ms.median)) / f.last_ms.median });
  }
  const out = { fixture: overRuns(fixture), daemon: overRuns(daemon), samples, daemon_cpu_ms_per_turn: round(daemonCpu / (RUNS * width)), paired: {
    first_delta_overhead_ms: median(paired.map((p) => p.first)), turn_overhead_pct: median(paired.map((p) => p.pct)),
  } };
  progress(`x${width}: fixture first ${out.fixture.first_ms} / last ${out.fixture.last_ms} ms; daemon first ${out.daemon.first_ms} / last ${out.daemon.last_ms} ms`);
  return out;
}

/** Where the first-delta time goes: median over runs of each run's median POST answer and model-request arrival. */
function breakdown(samples: TurnTiming[][], arrivals: Map<string, number>) {
  for (const t of samples.flat()) t.request_ms = (arrivals.get(t.text) ?? NaN) - t.sent_at;
  const of = (f: (t: TurnTiming) => number) => median(samples.map((run) => median(run.map(f))));
  return { post_answer_ms: of((t) => t.post_ms), model_request_at_fixture_ms: of((t) => t.request_ms) };
}

const overhead = (daemon: ReturnType<typeof overRuns>, fixture: ReturnType<typeof overRuns>) => ({
  first_delta_overhead_ms: round(daemon.first_ms - fixture.first_ms),
  turn_overhead_ms: round(daemon.last_ms - fixture.last_ms),
  turn_overhead_pct: round((100 * (daemon.last_ms - fixture.last_ms)) / fixture.last_ms),
});

/** One node's client, WS connection subscribed to `count` fresh sessions created on it, and turn timer. */
async function promptNode(scope: Scope, baseUrl: string, count: number) {
  const client = new ApiClient(baseUrl);
  scope.defer(() => client.close());
  const ws = await connectWs(baseUrl);
  scope.defer(() => ws.close());
  const timer = new TurnTimer(ws, client);
  const ids = await createSessions(client, await scope.tempDir('prompt-latency-ws'), count);
  await timer.subscribe(ids);
  return { timer, fresh: ids[Symbol.iterator]() };
}

runBench('prompt-latency', 5 * 60_000, async (scope) => {
  const reply = chunkedAnswer(TOKENS, CHUNKS, DELAY_MS);
  const chars = answerText(reply).length;
  const llm = await (FIXTURE_INPROC ? startInProcessLlm(scope) : startRemoteLlm(scope));
  const script = (n: number) => llm.setScript(...Array.from({ length: n }, () => reply));
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENT });
  scope.defer(() => agent.destroy());
  const daemons = await startNodes(scope, 'prompt-latency', llm.url, JOURNAL);
  // A fresh session for every prompt: each measures a conversation's first turn (runtime load included),
  // so the request body is the same size as the fixture-direct one. Prompts alternate between the nodes.
  const total = (WARMUP + RUNS) * (1 + CONCURRENT);
  const nodes = await Promise.all(daemons.map((d) => promptNode(scope, d.baseUrl, Math.ceil(total / daemons.length))));
  let n = 0;
  const viaDaemon = async () => {
    const i = n++;
    const node = nodes[i % nodes.length]!;
    const t = await node.timer.prompt(node.fresh.next().value!, `bench prompt ${i}`);
    if (t.chars !== chars) throw new Error(`turn streamed ${t.chars} chars, expected ${chars}`);
    return t;
  };
  const direct = () => directStream(agent, llm.url);
  const cpu = async () => (await Promise.all(daemons.map((d) => cpuMs(d.pid)))).reduce((a, b) => a + b, 0);
  const one = await measure(1, () => script(1), direct, viaDaemon, cpu);
  const twenty = await measure(CONCURRENT, () => script(CONCURRENT), direct, viaDaemon, cpu);
  const [fixture1, daemon1, samples1] = [one.fixture, one.daemon, one.samples];
  const [fixture20, daemon20, samples20] = [twenty.fixture, twenty.daemon, twenty.samples];
  const expected = total;
  const arrivals = (await llm.arrivals()).filter(([text]) => text.startsWith('bench prompt '));
  if (arrivals.length !== expected) throw new Error(`fixture saw ${arrivals.length} model requests from the daemon, expected ${expected}`);
  const arrivedAt = new Map(arrivals);
  // For lining the fixture's arrival times up with the daemon's SVC_CODE_TRACE_PROMPT marks (epoch ms both).
  if (process.env.BENCH_ARRIVALS_FILE) await writeFile(process.env.BENCH_ARRIVALS_FILE, JSON.stringify(arrivals));

  const o1 = overhead(daemon1, fixture1);
  const o20 = overhead(daemon20, fixture20);
  return {
    journal: { ...JOURNAL, label: journalLabel(JOURNAL) },
    description:
      `prompt POST -> first assistant.delta frame and -> turn.ended on one WS connection subscribed to the sessions, for a ${TOKENS}-token answer ` +
      `(${reply.events.length} chat_compat SSE text frames of ${Math.ceil(TOKENS / CHUNKS)} one-word tokens, ${DELAY_MS} ms apart, ${chars} chars) from the fixture LLM ` +
      `${FIXTURE_INPROC ? 'in the bench process' : 'in a process of its own (as a remote provider is)'}; daemon spawned from dist/ (${journalLabel(JOURNAL)}${JOURNAL.nodes > 1 ? ', prompts alternating between the nodes, each to a session created on it; daemon CPU summed over the nodes' : ''}); clients in the bench process. ` +
      'Fixture direct: the same script over a keep-alive streaming HTTP client in the bench process, ms to the first text frame and to the end. ' +
      `Fixture-direct and daemon runs alternate: ${WARMUP} warm-up rounds, then ${RUNS}; each run's median and p95 over its sessions/streams, then the median over runs. ` +
      'Every prompt goes to a fresh session (a first turn, including loading the session runtime).',
    target: { ...TARGET, aim_first_delta_ms: AIM.first_delta_ms, aim_turn_ms: AIM.turn_ms },
    fixture_in_process: FIXTURE_INPROC,
    script: { tokens: TOKENS, frames: reply.events.length, tokens_per_frame: Math.ceil(TOKENS / CHUNKS), delay_ms: DELAY_MS, chars },
    fixture_direct: { sessions_1: fixture1, concurrent_20: fixture20 },
    daemon: { sessions_1: daemon1, concurrent_20: daemon20 },
    overhead: { sessions_1: o1, concurrent_20: o20 },
    daemon_cpu_ms_per_turn: { sessions_1: one.daemon_cpu_ms_per_turn, concurrent_20: twenty.daemon_cpu_ms_per_turn },
    overhead_paired: { note: 'median over rounds of (daemon run median - fixture run median of the same round)', sessions_1: one.paired, concurrent_20: twenty.paired },
    first_delta_breakdown: {
      note: 'ms from the prompt POST to its HTTP answer, and to the model request reaching the fixture (the rest of the first delta is the fixture\'s first frame and the relay)',
      sessions_1: breakdown(samples1, arrivedAt),
      concurrent_20: breakdown(samples20, arrivedAt),
    },
    pass: o1.first_delta_overhead_ms < TARGET.first_delta_overhead_ms && o1.turn_overhead_pct < TARGET.turn_overhead_pct &&
      o20.first_delta_overhead_ms < TARGET.first_delta_overhead_ms && o20.turn_overhead_pct < TARGET.turn_overhead_pct,
    aim_met: daemon1.first_ms < AIM.first_delta_ms && daemon1.last_ms < AIM.turn_ms,
  };
});
