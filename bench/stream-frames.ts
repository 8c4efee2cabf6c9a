import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { answerText, chunkedAnswer, createSessions, engineConfig } from './lib/engine.ts';
import { startDaemon } from './lib/daemon.ts';
import { startRemoteLlm } from './lib/fixture-remote.ts';
import { ApiClient } from './lib/http.ts';
import { runBench, type Scope } from './lib/lifecycle.ts';
import { intEnv, progress } from './lib/report.ts';
import { median, round } from './lib/stats.ts';
import { connectWs, type BenchWs } from './lib/ws-client.ts';

// Issue 13 item 6: what one 2,000-token answer costs each subscriber (frames and bytes), on the legacy frames
// (`subscribe`) and on the transcript channel (`subscribe_v2` grade delta), without coalescing
// (SVC_CODE_WS_COALESCE_MS=0, the daemon before) and with it (16 ms); first delta and turn end from the POST.

const TOKENS = 2_000;
const CHUNKS = intEnv('BENCH_CHUNKS', 2_000);
const DELAY_MS = intEnv('BENCH_CHUNK_DELAY_MS', 0);
const RUNS = intEnv('BENCH_RUNS', 5);
const TARGET = { frames_per_subscriber: 100, kb_per_subscriber: 40, first_delta_overhead_ms: 5 };

interface Sub { ws: BenchWs; frames: number; bytes: number; first: number; end: number; byType: Record<string, { frames: number; bytes: number }> }

function counting(ws: BenchWs, sid: string, isFirst: (f: any) => boolean, isEnd: (f: any) => boolean): Sub {
  const s: Sub = { ws, frames: 0, bytes: 0, first: NaN, end: NaN, byType: {} };
  ws.socket.on('message', (data: Buffer) => {
    const f = JSON.parse(String(data));
    if (f.session_id !== sid) return;
    s.frames += 1;
    s.bytes += data.length;
    const kind = f.type === 'transcript.ops' ? `transcript.ops${f.payload.volatile ? ' (deltas)' : ''}` : f.type;
    const t = (s.byType[kind] ??= { frames: 0, bytes: 0 });
    t.frames += 1;
    t.bytes += data.length;
    if (Number.isNaN(s.first) && isFirst(f)) s.first = performance.now();
    if (isEnd(f)) s.end = performance.now();
  });
  return s;
}

async function one(scope: Scope, coalesceMs: number) {
  const llm = await startRemoteLlm(scope);
  const home = await scope.tempDir(`stream-frames-${coalesceMs}`);
  await writeFile(path.join(home, 'config.toml'), engineConfig(llm.url));
  const daemon = await startDaemon(scope, home, { SVC_CODE_WS_COALESCE_MS: String(coalesceMs) });
  const client = new ApiClient(daemon.baseUrl);
  scope.defer(() => client.close());
  const reply = chunkedAnswer(TOKENS, CHUNKS, DELAY_MS);
  const chars = answerText(reply).length;
  const ids = await createSessions(client, await scope.tempDir('stream-frames-ws'), RUNS + 1);
  const runs: Array<Record<string, number>> = [];
  let breakdown: Record<string, unknown> = {};
  for (let r = -1; r < RUNS; r++) {
    const sid = ids[r + 1]!;
    const legacyWs = await connectWs(daemon.baseUrl);
    const v2Ws = await connectWs(daemon.baseUrl);
    scope.defer(() => legacyWs.close());
    scope.defer(() => v2Ws.close());
    await legacyWs.request('subscribe', { session_ids: [sid] });
    const ack = await v2Ws.request('subscribe_v2', { session_id: sid, transcript: { main: 'delta' } });
    if (ack.code !== 0) throw new Error(JSON.stringify(ack));
    await new Promise((ok) => setTimeout(ok, 50));
    const legacy = counting(legacyWs, sid, (f) => f.type === 'assistant.delta', (f) => f.type === 'turn.ended');
    const v2 = counting(v2Ws, sid, (f) => f.type === 'transcript.ops' && f.payload.ops.some((o: any) => o.op === 'append'),
      (f) => f.type === 'transcript.ops' && f.payload.ops.some((o: any) => o.op === 'turn.upsert' && o.turn.state === 'completed'));
    await llm.setScript(reply);
    const t0 = performance.now();
    const res = await client.request('POST', `/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: `stream ${r}` }] });
    if (res.body?.code !== 0) throw new Error(JSON.stringify(res.body));
    const deadline = Date.now() + 30_000;
    while ((Number.isNaN(legacy.end) || Number.isNaN(v2.end)) && Date.now() < deadline) await new Promise((ok) => setTimeout(ok, 5));
    if (Number.isNaN(legacy.end) || Number.isNaN(v2.end)) throw new Error('turn did not end');
    await legacyWs.close();
    await v2Ws.close();
    if (r < 0) continue;
    // Where the frames and bytes go (the last run's): per frame type, frames / bytes.
    const per = (x: Sub) => Object.fromEntries(Object.entries(x.byType).map(([k, v]) => [k, `${v.frames} / ${v.bytes}`]));
    breakdown = { legacy: per(legacy), v2: per(v2) };
    runs.push({
      legacy_frames: legacy.frames, legacy_kb: round(legacy.bytes / 1024), legacy_first_ms: round(legacy.first - t0), legacy_end_ms: round(legacy.end - t0),
      v2_frames: v2.frames, v2_kb: round(v2.bytes / 1024), v2_first_ms: round(v2.first - t0), v2_end_ms: round(v2.end - t0),
    });
  }
  const med = (k: string) => median(runs.map((x) => x[k]!));
  const out = Object.fromEntries(Object.keys(runs[0]!).map((k) => [k, med(k)])) as Record<string, number>;
  progress(`coalesce ${coalesceMs} ms: ${JSON.stringify(out)}`);
  await daemon.stop();
  return { chars, ...out, breakdown } as unknown as Record<string, number>;
}

runBench('stream-frames', 5 * 60_000, async (scope) => {
  const before = await one(scope, 0);
  const after = await one(scope, 16);
  return {
    description:
      `One ${TOKENS}-token answer (${CHUNKS} chat_compat SSE frames, ${DELAY_MS} ms apart) from the fixture LLM in its own process, daemon from dist/. ` +
      'Per subscriber of the session, from the prompt POST to the turn end: frames and bytes received, ms to the first delta ' +
      '(legacy assistant.delta / transcript append op) and to the turn end (turn.ended / turn.upsert completed). Two subscribers: one `subscribe` ' +
      `(legacy frames), one \`subscribe_v2\` {main: delta} (transcript ops). Median of ${RUNS} turns after one warm-up, each on a fresh session. ` +
      '`before`: SVC_CODE_WS_COALESCE_MS=0 (one frame per delta); `after`: the default 16 ms window.',
    target: TARGET,
    before,
    after,
    pass: after.legacy_frames! <= TARGET.frames_per_subscriber && after.legacy_kb! <= TARGET.kb_per_subscriber
      && after.v2_frames! <= TARGET.frames_per_subscriber && after.v2_kb! <= TARGET.kb_per_subscriber
      && after.legacy_first_ms! <= before.legacy_first_ms! + TARGET.first_delta_overhead_ms,
  };
});
