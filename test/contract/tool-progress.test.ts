import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { prompt, YOLO } from '../helpers/engine.ts';
import { startMcpEngine, stdioServer } from '../helpers/mcp.ts';
import { until } from '../helpers/wait.ts';
import { connectClient, opsOf, restTranscript, sameAsRest, toolCall, toolFrameOf, transcriptIdle, watchedEngine } from './transcript-client.ts';

// spec/clients.md B3 tool `progress` and C2 "tool progress": while a tool runs, `frame.upsert` of its tool frame with
// `progress` (Bash: the output so far; an MCP tool: its progress notifications); the result's upsert drops it.
// The client store (REST + ops) equals GET /transcript while the call runs and after it.

const call = toolCall;
const progressOps = (c: any, id: string) => opsOf(c).filter((o) => o.op === 'frame.upsert' && o.frame.toolCallId === id && o.frame.progress);
const toolOf = toolFrameOf;

test('a running Bash call shows its output so far as progress {kind:stdout}; the store equals GET while it runs; the result drops it', async (t) => {
  const env = await watchedEngine(t, { extraToml: YOLO });
  const { s, sid, c } = env;
  // The command waits for a file the test writes once it has seen the first lines: no fixed sleep decides the test.
  const cmd = 'echo line1; echo line2; for i in $(seq 1 200); do [ -f go ] && break; sleep 0.05; done; echo line3';
  env.llm.setScript(call('b1', 'Bash', { command: cmd }), scripts.helloText);
  await prompt(env, 'run it');
  await until(() => progressOps(c, 'b1').some((o) => o.frame.progress.text.includes('line2')) || undefined, 30_000);
  const running = await sameAsRest(t, c, s, sid, 'while the call runs');
  const frame = toolOf(running, 'b1');
  t.is(frame.state, 'running');
  t.deepEqual(frame.progress, { kind: 'stdout', text: 'line1\nline2\n' });
  const root = s.sessions.get(sid)!.cwd;
  const { writeFile } = await import('node:fs/promises');
  await writeFile(`${root}/go`, '');
  await transcriptIdle(s, sid);
  const done = await sameAsRest(t, c, s, sid, 'after the result');
  const finished = toolOf(done, 'b1');
  t.is(finished.state, 'done');
  t.is(finished.progress, undefined, 'the result drops progress');
  t.true(String(finished.output).includes('line3'));
  // Every progress update carried the whole output so far (each a prefix of the next).
  const texts = progressOps(c, 'b1').map((o) => o.frame.progress.text as string);
  for (let i = 1; i < texts.length; i++) t.true(texts[i].startsWith(texts[i - 1]), `${texts[i - 1]} -> ${texts[i]}`);
  // A fold of the journal (after a restart) has the same finished frame.
  await c.ws.close();
  const s2 = await s.restart();
  t.teardown(() => s2.stop());
  t.deepEqual(toolOf(await restTranscript(s2, sid), 'b1'), finished);
});

test('an MCP tool\'s progress notifications are progress {kind:progress, percent, text} on its tool frame', async (t) => {
  const env = await startMcpEngine(t, { fx: stdioServer() }, YOLO);
  const { s, sid } = env;
  const c = await connectClient(s, sid);
  t.teardown(() => c.ws.close());
  env.llm.setScript(call('p1', 'mcp__fx__progress', { steps: 3 }), scripts.helloText);
  await prompt(env, 'go');
  await transcriptIdle(s, sid);
  const d = await sameAsRest(t, c, s, sid, 'after the MCP call');
  const seen = progressOps(c, 'p1').map((o) => o.frame.progress);
  t.true(seen.length >= 1, 'at least one progress update reached the client');
  // Each update as the server sent it, in order (a last one that reaches the fold after the result is dropped with
  // the result's frame, so the final 100 % is not required: it raced the result on a loaded machine).
  const steps = [{ kind: 'progress', percent: 33.3, text: 'step 1' }, { kind: 'progress', percent: 66.7, text: 'step 2' }, { kind: 'progress', percent: 100, text: 'step 3' }];
  for (const p of seen) t.true(steps.some((x) => JSON.stringify(x) === JSON.stringify(p)), JSON.stringify(p));
  const order = seen.map((p) => p.percent as number);
  t.deepEqual(order, [...order].sort((a, b) => a - b), 'in the order sent');
  t.like(toolOf(d, 'p1'), { state: 'done', view: 'fx: progress' });
  t.is(toolOf(d, 'p1').progress, undefined);
});
