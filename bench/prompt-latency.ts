import http from 'node:http';
import { answerText, chunkedAnswer, createSessions, directStream, stampArrivals, startEngineDaemon, TurnTimer, type Timing, type TurnTiming } from './lib/engine.ts';
import { runBench } from './lib/lifecycle.ts';
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

/** WARMUP untimed runs, then RUNS timed ones; each run is `width` streams started at once. */
async function measure<T extends Timing>(label: string, width: number, prepare: () => void, one: (i: number) => Promise<T>) {
  const runs: RunStats[] = [];
  const samples: T[][] = [];
  for (let r = -WARMUP; r < RUNS; r++) {
    prepare();
    const ts = await Promise.all(Array.from({ length: width }, (_, i) => one(i)));
    if (r < 0) continue;
    runs.push(runStats(ts));
    samples.push(ts);
  }
  const s = overRuns(runs);
  progress(`${label}: first ${s.first_ms} ms, last ${s.last_ms} ms`);
  return { summary: s, samples };
}

/** Where the first-delta time goes: median over runs of each run's median POST answer and model-request arrival. */
function breakdown(samples: TurnTiming[][]) {
  const of = (f: (t: TurnTiming) => number) => median(samples.map((run) => median(run.map(f))));
  return { post_answer_ms: of((t) => t.post_ms), model_request_at_fixture_ms: of((t) => t.request_ms) };
}

const overhead = (daemon: ReturnType<typeof overRuns>, fixture: ReturnType<typeof overRuns>) => ({
  first_delta_overhead_ms: round(daemon.first_ms - fixture.first_ms),
  turn_overhead_ms: round(daemon.last_ms - fixture.last_ms),
  turn_overhead_pct: round((100 * (daemon.last_ms - fixture.last_ms)) / fixture.last_ms),
});

runBench('prompt-latency', 5 * 60_000, async (scope) => {
  const reply = chunkedAnswer(TOKENS, CHUNKS, DELAY_MS);
  const chars = answerText(reply).length;
  const { llm, daemon, client } = await startEngineDaemon(scope, 'prompt-latency');
  const script = (n: number) => llm.setScript(...Array.from({ length: n }, () => reply));

  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENT });
  scope.defer(() => agent.destroy());
  const direct = async (width: number) => (await measure(`fixture direct x${width}`, width, () => script(width), () => directStream(agent, llm.url))).summary;
  const fixture1 = await direct(1);
  const fixture20 = await direct(CONCURRENT);

  const ws = await connectWs(daemon.baseUrl);
  scope.defer(() => ws.close());
  const timer = new TurnTimer(ws, client, stampArrivals(llm));
  const cwd = await scope.tempDir('prompt-latency-ws');
  // A fresh session for every prompt: each measures a conversation's first turn (runtime load included),
  // so the request body is the same size as the fixture-direct one.
  const ids = await createSessions(client, cwd, (WARMUP + RUNS) * (1 + CONCURRENT));
  await timer.subscribe(ids);
  const fresh = ids[Symbol.iterator]();
  const before = llm.requests.length;
  const viaDaemon = (width: number) => {
    let n = 0;
    return measure(`daemon x${width}`, width, () => script(width), async () => {
      const t = await timer.prompt(fresh.next().value!, `bench prompt ${n++}`);
      if (t.chars !== chars) throw new Error(`turn streamed ${t.chars} chars, expected ${chars}`);
      return t;
    });
  };
  const { summary: daemon1, samples: samples1 } = await viaDaemon(1);
  const { summary: daemon20, samples: samples20 } = await viaDaemon(CONCURRENT);
  const expected = (WARMUP + RUNS) * (1 + CONCURRENT);
  if (llm.requests.length - before !== expected) throw new Error(`fixture saw ${llm.requests.length - before} model requests, expected ${expected}`);

  const o1 = overhead(daemon1, fixture1);
  const o20 = overhead(daemon20, fixture20);
  return {
    description:
      `prompt POST -> first assistant.delta frame and -> turn.ended on one WS connection subscribed to the sessions, for a ${TOKENS}-token answer ` +
      `(${reply.events.length} chat_compat SSE text frames of ${Math.ceil(TOKENS / CHUNKS)} one-word tokens, ${DELAY_MS} ms apart, ${chars} chars) from the fixture LLM ` +
      'in the bench process; daemon spawned from dist/. Fixture direct: the same script over a keep-alive streaming HTTP client, ms to the first text frame and to the end. ' +
      `${WARMUP} warm-up runs, then ${RUNS} runs; each run's median and p95 over its sessions/streams, then the median over runs. ` +
      'Every prompt goes to a fresh session (a first turn, including loading the session runtime).',
    target: { ...TARGET, aim_first_delta_ms: AIM.first_delta_ms, aim_turn_ms: AIM.turn_ms },
    script: { tokens: TOKENS, frames: reply.events.length, tokens_per_frame: Math.ceil(TOKENS / CHUNKS), delay_ms: DELAY_MS, chars },
    fixture_direct: { sessions_1: fixture1, concurrent_20: fixture20 },
    daemon: { sessions_1: daemon1, concurrent_20: daemon20 },
    overhead: { sessions_1: o1, concurrent_20: o20 },
    first_delta_breakdown: {
      note: 'ms from the prompt POST to its HTTP answer, and to the model request reaching the fixture (the rest of the first delta is the fixture\'s first frame and the relay)',
      sessions_1: breakdown(samples1),
      concurrent_20: breakdown(samples20),
    },
    pass: o1.first_delta_overhead_ms < TARGET.first_delta_overhead_ms && o1.turn_overhead_pct < TARGET.turn_overhead_pct &&
      o20.first_delta_overhead_ms < TARGET.first_delta_overhead_ms && o20.turn_overhead_pct < TARGET.turn_overhead_pct,
    aim_met: daemon1.first_ms < AIM.first_delta_ms && daemon1.last_ms < AIM.turn_ms,
  };
});
