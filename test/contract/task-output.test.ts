import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { prompt, YOLO } from '../helpers/engine.ts';
import { until } from '../helpers/wait.ts';
import { opsOf, restTranscript, sameAsRest, transcriptIdle, watchedEngine } from './transcript-client.ts';

// spec/clients.md B4 task `outputTail`, C `append` with a task target, C2 "shell output becomes append to the task":
// a background Bash task's output reaches main's transcript channel as appends while it runs; the tail is bounded
// (cut and re-sent whole as task.upsert); task.terminated carries the durable tail, so a fold of the journal agrees.

const bg = (id: string, command: string) => ({ events: [{ tool_call: { id, name: 'Bash', args: { command, run_in_background: true } } }] });
const WAIT_GO = 'for i in $(seq 1 400); do [ -f go ] && break; sleep 0.05; done';

test('a background task\'s output is appended to its task record while it runs; the ended task keeps the tail', async (t) => {
  const env = await watchedEngine(t, { extraToml: YOLO });
  const { s, sid, c } = env;
  const cwd = s.sessions.get(sid)!.cwd;

  env.llm.setScript(bg('o1', `echo out1; echo out2; ${WAIT_GO}; echo out3`), scripts.helloText);
  await prompt(env, 'background');
  const taskOf = (d: any) => d.tasks.find((x: any) => x.kind === 'shell');
  await until(async () => taskOf(await restTranscript(s, sid))?.outputTail === 'out1\nout2\n' || undefined, 30_000);
  let d = await sameAsRest(t, c, s, sid, 'while the task runs');
  const id = taskOf(d).taskId;
  t.like(taskOf(d), { state: 'running', outputTail: 'out1\nout2\n' });
  const appends = opsOf(c).filter((o) => o.op === 'append' && o.target.type === 'task');
  t.true(appends.length >= 1);
  t.true(appends.every((o) => o.target.taskId === id));
  t.is(appends.map((o) => o.text).join(''), 'out1\nout2\n', 'the appends carry exactly the output, in order');
  t.is(appends[0].offset, 0);

  await writeFile(path.join(cwd, 'go'), '');
  await until(async () => taskOf(await restTranscript(s, sid)).state === 'completed' || undefined, 30_000);
  await transcriptIdle(s, sid);
  d = await sameAsRest(t, c, s, sid, 'after the task ended');
  t.like(taskOf(d), { state: 'completed', outputTail: 'out1\nout2\nout3\n' });
  t.is(taskOf(d).output_preview, undefined, 'the tail is kept once, as outputTail');
  const rest = (await s.get(`/api/v1/sessions/${sid}/tasks/${id}`)).data;
  t.is(rest.output_preview, undefined, 'GET without with_output still has no output fields');

  await c.ws.close();
  const s2 = await s.restart();
  t.teardown(() => s2.stop());
  t.like(taskOf(await restTranscript(s2, sid)), { taskId: id, state: 'completed', outputTail: 'out1\nout2\nout3\n' });
});

test('a long output keeps a bounded tail: cut and re-sent whole as task.upsert, equal to GET throughout', async (t) => {
  const env = await watchedEngine(t, { extraToml: YOLO });
  const { s, sid, c } = env;
  const cwd = s.sessions.get(sid)!.cwd;

  env.llm.setScript(bg('o2', `seq 1 6000; ${WAIT_GO}; echo end`), scripts.helloText);
  await prompt(env, 'lots of output');
  const taskOf = (d: any) => d.tasks.find((x: any) => x.kind === 'shell');
  await until(async () => taskOf(await restTranscript(s, sid))?.outputTail.endsWith('\n6000\n') || undefined, 30_000);
  let d = await sameAsRest(t, c, s, sid, 'a long output while running');
  const tail: string = taskOf(d).outputTail;
  t.true(tail.length <= 8000, `bounded: ${tail.length}`);
  t.regex(tail, /^\d+\n/, 'cut at a line start');
  t.true(opsOf(c).some((o) => o.op === 'task.upsert' && o.task.state === 'running' && o.task.outputTail.length <= 4000), 'the cut tail went out whole');

  await writeFile(path.join(cwd, 'go'), '');
  await until(async () => taskOf(await restTranscript(s, sid)).state === 'completed' || undefined, 30_000);
  await transcriptIdle(s, sid);
  d = await sameAsRest(t, c, s, sid, 'a long output after the end');
  const ended: string = taskOf(d).outputTail;
  t.true(ended.endsWith('\n6000\nend\n'));
  t.true(Buffer.byteLength(ended) <= 4096);
});
