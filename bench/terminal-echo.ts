import { startDaemon } from './lib/daemon.ts';
import { ApiClient } from './lib/http.ts';
import { runBench } from './lib/lifecycle.ts';
import { intEnv, progress } from './lib/report.ts';
import { summarize } from './lib/stats.ts';
import { connectWs, type BenchWs } from './lib/ws-client.ts';

const SAMPLES = intEnv('BENCH_SAMPLES', 200);
const WARMUP = 20;
const TARGET_P50_MS = 10;

/** Resolves when the output received since the call contains `needle`. */
function expect(ws: BenchWs, terminalId: string, needle: string, timeoutMs = 10_000): Promise<void> {
  let text = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "${needle}" in terminal output within ${timeoutMs} ms: ${JSON.stringify(text.slice(-200))}`)), timeoutMs);
    ws.onFrame = (f) => {
      if (f.type !== 'terminal_output' || f.payload.terminal_id !== terminalId) return;
      text += f.payload.data;
      if (!text.includes(needle)) return;
      clearTimeout(timer);
      ws.onFrame = null;
      resolve();
    };
  });
}

async function send(ws: BenchWs, terminalId: string, data: string): Promise<void> {
  const ack = await ws.request('terminal_input', { terminal_id: terminalId, data });
  if (ack.code !== 0) throw new Error(`terminal_input refused: ${JSON.stringify(ack)}`);
}

/** One round trip: marker line written to `cat`, timed until cat's copy of it arrives. */
async function roundTrip(ws: BenchWs, terminalId: string, i: number): Promise<number> {
  const marker = `mk${i}z`;
  const back = expect(ws, terminalId, marker);
  const t0 = performance.now();
  await send(ws, terminalId, `${marker}\r`);
  await back;
  return performance.now() - t0;
}

runBench('terminal-echo', 3 * 60_000, async (scope) => {
  const home = await scope.tempDir('home');
  const [cwd] = await scope.workspaceDirs(home, 1);
  const daemon = await startDaemon(scope, home);
  const client = new ApiClient(daemon.baseUrl);
  scope.defer(() => client.close());
  const session = await client.ok('POST', '/api/v1/sessions', { metadata: { cwd }, title: 'terminal bench' });
  const term = await client.ok('POST', `/api/v1/sessions/${session.id}/terminals`, { shell: '/bin/sh' });
  scope.defer(async () => void (await client.request('POST', `/api/v1/sessions/${session.id}/terminals/${term.id}:close`, {})));
  const ws = await connectWs(daemon.baseUrl);
  scope.defer(() => ws.close());
  const attach = await ws.request('terminal_attach', { terminal_id: term.id });
  if (attach.code !== 0) throw new Error(`terminal_attach refused: ${JSON.stringify(attach)}`);
  // Without tty echo, what comes back is cat's own copy: a full trip through a process, like a shell echoing a key.
  const ready = expect(ws, term.id, 'cat-1-ready');
  await send(ws, term.id, 'stty -echo; echo cat-$((1))-ready; exec cat\r');
  await ready;
  progress(`terminal ${term.id} runs cat; ${WARMUP} warm-up + ${SAMPLES} round trips`);
  for (let i = 0; i < WARMUP; i++) await roundTrip(ws, term.id, -i - 1);
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) samples.push(await roundTrip(ws, term.id, i));
  const s = summarize(samples);
  return {
    description:
      'terminal_input of a marker line to `cat` in a PTY (tty echo off) over /api/v1/ws, timed until the terminal_output carrying cat\'s copy arrives; ' +
      'daemon in its own process, one round trip in flight',
    target: { p50_ms: TARGET_P50_MS },
    samples: s.n,
    p50_ms: s.p50,
    p99_ms: s.p99,
    min_ms: s.min,
    max_ms: s.max,
    mean_ms: s.mean,
    pass: s.p50 < TARGET_P50_MS,
  };
});
