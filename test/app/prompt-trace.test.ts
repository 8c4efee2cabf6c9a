import test, { type ExecutionContext } from 'ava';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { scripts, startFixtureLlm } from '../../fixtures/llm/index.ts';
import { engineConfig, prompt, turnEnded, type EngineEnv } from '../helpers/engine.ts';
import { newSession, startTestServer, tempHome } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

// The prompt-latency trace (src/engine/trace.ts, docs/settings.md `SVC_CODE_TRACE_PROMPT`): the setting is read
// into the server's own settings, its tracer made once and passed to each part that marks. A server started with it
// writes one line per turn with the marks of every part on the path; one started without it writes none.

/** Marks each part on the path records (the journal's are checked by prefix: their suffix is the event's name). */
const EXPECTED = [
  'http.in', 'http.out', // the HTTP app
  'route.start', // the router
  'intake.start', 'intake.media', 'intake.skills', 'intake.runtime', 'intake.model', 'intake.credential', 'intake.append', 'intake.enqueued', 'intake.committed',
  'turn.start', 'turn.appendCalled', 'turn.client', 'turn.end', // the session runtime
  'step.start', 'step.beforeStep', 'step.folded', 'step.appendCalled', 'step.ready', 'step.messages', 'step.specs', 'delta.first', 'delta.sent', // the turn
  'wire.request', 'wire.call', 'wire.doStreamed', 'part.first', // the wire, through the turn's request
];
const JOURNAL_PREFIXES = ['ja:', 'jw:', 'jd:'];

interface TraceLine {
  key: string;
  marks: Array<[string, number, number, number]>;
}

async function traceLines(file: string): Promise<TraceLine[]> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return '';
    throw err;
  });
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as TraceLine);
}

/** A server against a fresh fixture LLM, its settings' environment plus `env`; one session, a WS subscribed to it. */
async function tracedEngine(t: ExecutionContext, env: NodeJS.ProcessEnv): Promise<EngineEnv> {
  const llm = await startFixtureLlm();
  const home = await tempHome();
  await writeFile(path.join(home, 'config.toml'), engineConfig(llm.url));
  const s = await startTestServer({ home, env });
  const e: EngineEnv = { s, llm, sid: await newSession(s), ws: await s.ws() };
  t.teardown(async () => {
    await e.ws.close();
    await e.s.stop();
    await llm.close();
  });
  await e.ws.request('subscribe', { session_ids: [e.sid] });
  return e;
}

async function traceFile(t: ExecutionContext): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-code-trace-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return path.join(dir, 'trace.jsonl');
}

test('a server started with SVC_CODE_TRACE_PROMPT writes one line per turn with every part\'s marks', async (t) => {
  const file = await traceFile(t);
  const env = await tracedEngine(t, { SVC_CODE_TRACE_PROMPT: file });
  for (const n of [1, 2]) {
    env.llm.setScript(scripts.helloText);
    t.is((await prompt(env, `turn ${n}`)).code, 0);
    t.is((await turnEnded(env, n)).payload.reason, 'completed');
    // The line is written once the turn's end is journaled, which the frame above may precede.
    await until(async () => (await traceLines(file)).length >= n, 30_000, `trace line ${n}`);
  }
  const lines = await traceLines(file);
  t.is(lines.length, 2, 'one line per turn');
  for (const line of lines) {
    t.is(line.key, env.sid);
    const labels = line.marks.map(([label]) => label);
    t.deepEqual(EXPECTED.filter((l) => !labels.includes(l)), [], 'every expected mark is recorded');
    for (const prefix of JOURNAL_PREFIXES) t.true(labels.some((l) => l.startsWith(prefix)), `a journal mark ${prefix}*`);
    t.is(new Set(labels).size, labels.length, 'each mark once per turn');
    for (const [, epochMs, idleMs, monoUs] of line.marks) t.true([epochMs, idleMs, monoUs].every(Number.isFinite));
  }
});

test('a server started without it writes no line, beside one that traces', async (t) => {
  const file = await traceFile(t);
  const [on, off] = await Promise.all([tracedEngine(t, { SVC_CODE_TRACE_PROMPT: file }), tracedEngine(t, { SVC_CODE_TRACE_PROMPT: '' })]);
  for (const env of [off, on]) {
    env.llm.setScript(scripts.helloText);
    t.is((await prompt(env, 'hi')).code, 0);
    t.is((await turnEnded(env)).payload.reason, 'completed');
  }
  await until(async () => (await traceLines(file)).length >= 1, 30_000, 'the tracing server\'s line');
  const lines = await traceLines(file);
  t.deepEqual(lines.map((l) => l.key), [on.sid], 'only the tracing server\'s turn: the other has no tracer of its own, nor a shared one');
});
