import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import pino from 'pino';
import { engineConfig } from './lib/engine.ts';
import { runBench } from './lib/lifecycle.ts';
import { intEnv, progress } from './lib/report.ts';
import { round } from './lib/stats.ts';
import { startFixtureLlm } from '../fixtures/llm/index.ts';
import { defaultServeOptions } from '../src/app/options.ts';
import { startServer } from '../src/app/server.ts';
import { readSettings } from '../src/app/settings.ts';
import { replaySession, type ReplayReport } from '../src/replay/run.ts';
import type { JournalEvent } from '../journal/types.ts';

const TURNS = intEnv('BENCH_TURNS', 50);

/**
 * `svc-code replay` on a recorded session: TURNS turns, each a Bash call (`echo <n>`, yolo mode) and a text
 * answer, recorded against the fixture LLM by a daemon in this process and exported over HTTP; then the
 * export replayed in process with `--tools record` and with `--tools live` (a fresh temp home each).
 */
runBench('replay', 5 * 60_000, async (scope) => {
  const llm = await startFixtureLlm();
  scope.defer(() => llm.close());
  const home = await scope.tempDir('replay-home');
  const cwd = await scope.tempDir('replay-ws');
  // Every Bash call runs without an approval (a top-level key, so before the config's tables).
  await writeFile(path.join(home, 'config.toml'), `default_permission_mode = "yolo"\n${engineConfig(llm.url)}`);
  const server = await startServer({ home, settings: readSettings(process.env), options: { ...defaultServeOptions(), host: '127.0.0.1', port: 0 }, log: pino({ level: 'silent' }) });
  scope.defer(() => server.close());
  const auth = { Authorization: `Bearer ${server.parts.token}`, 'Content-Type': 'application/json' };
  const post = async (url: string, body: unknown) => (await fetch(server.baseUrl + url, { method: 'POST', headers: auth, body: JSON.stringify(body) })).json() as Promise<any>;
  const sid = (await post('/api/v1/sessions', { metadata: { cwd } })).data.id as string;
  // Resolves at the session's next committed `turn.ended` (set before the prompt is posted).
  const turnEnded = () => new Promise<void>((resolve) => {
    const journal = server.parts.journal;
    const on = (events: JournalEvent[]) => {
      if (!events.some((e) => e.stream === sid && e.type === 'turn.ended')) return;
      journal.off('committed', on);
      resolve();
    };
    journal.on('committed', on);
  });
  const recordStart = performance.now();
  for (let i = 0; i < TURNS; i++) {
    llm.setScript({ events: [{ text: `running ${i}` }, { tool_call: { id: `b${i}`, name: 'Bash', args: { command: `echo ${i}` } } }] }, { events: [{ text: `done ${i}` }] });
    const ended = turnEnded();
    const sent = await post(`/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: `turn ${i}` }] });
    if (sent.code !== 0) throw new Error(`prompt ${i} refused: ${JSON.stringify(sent)}`);
    await ended;
  }
  const recordMs = performance.now() - recordStart;
  const res = await fetch(`${server.baseUrl}/api/v1/sessions/${sid}/export`, { method: 'POST', headers: auth, body: '{}' });
  const zip = new Uint8Array(await res.arrayBuffer());
  progress(`recorded ${TURNS} turns in ${Math.round(recordMs)} ms, export ${zip.length} bytes`);
  const run = async (tools: 'record' | 'live') => {
    const t0 = performance.now();
    const report: ReplayReport = await replaySession({ zip, tools, workspace: cwd, log: pino({ level: 'silent' }), settings: readSettings(process.env) });
    const ms = performance.now() - t0;
    if (report.divergence || report.stopped) throw new Error(`replay ${tools} diverged: ${JSON.stringify(report.divergence ?? report.stopped).slice(0, 500)}`);
    progress(`replay --tools ${tools}: ${Math.round(ms)} ms`);
    return { ms: round(ms), events: report.events.replayed, events_per_s: round(report.events.replayed / (ms / 1000)), turns: report.turns.replayed };
  };
  return { turns: TURNS, record_ms: round(recordMs), export_bytes: zip.length, replay_record: await run('record'), replay_live: await run('live') };
});
