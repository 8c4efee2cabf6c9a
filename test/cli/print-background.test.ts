import test from 'ava';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { alive } from '../helpers/bash.ts';
import { buildOnce, jsonLines, printEnv, runPrint, spawnPrint, type PrintEnv, type Running } from '../helpers/print.ts';
import { until } from '../helpers/wait.ts';

// svc-code -p and the work that outlives the turn ([background] print_background_mode exit / drain / steer, the
// wait's limits), approvals and questions with nobody to answer them, and Ctrl-C.

test.before(() => buildOnce());

const bash = (id: string, command: string, background = true) => ({ events: [{ tool_call: { id, name: 'Bash', args: { command, run_in_background: background } } }] });
const say = (text: string) => ({ events: [{ text }] });
const bodyText = (body: any): string => JSON.stringify(body.messages);
const pidIn = async (dir: string, file: string) => Number(await readFile(path.join(dir, file), 'utf8').catch(() => '0'));
/** A shell fragment that waits until the test creates `name` in the run's directory (prints its pid to `name.pid` first). */
const held = (name: string) => `echo $$ > ${name}.pid; while [ ! -f ${name} ]; do sleep 0.05; done`;
const release = (env: PrintEnv, name: string) => writeFile(path.join(env.root, name), '');
/** stream-json frames of a run so far, of one type. */
const framesOf = (run: Running, type: string) => jsonLines(run.stdout().slice(0, run.stdout().lastIndexOf('\n') + 1)).filter((f) => f.type === type);
const stopHeld = (env: PrintEnv, names: string[]) => Promise.all(names.map(async (n) => {
  const pid = await pidIn(env.root, `${n}.pid`);
  if (pid) try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ }
}));

test('exit: the run leaves when the turn ends; the running task is stopped', async (t) => {
  const env = await printEnv(t, '[background]\nprint_background_mode = "exit"');
  env.llm.setScript(bash('b1', 'echo $$ > task.pid; sleep 60'), say('started it'));
  const r = await runPrint(env, ['-p', 'start the job', '--yolo']);
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, 'started it\n');
  const pid = await until(() => pidIn(env.root, 'task.pid'), 30_000);
  t.teardown(() => { try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ } });
  await until(() => !alive(pid), 30_000);
  t.is(env.llm.requests.length, 2);
});

test('drain: the run waits for the task to end and feeds nothing back', async (t) => {
  const env = await printEnv(t, '[background]\nprint_background_mode = "drain"');
  env.llm.setScript(bash('b1', 'sleep 1; echo drained > out.txt'), say('started it'));
  const r = await runPrint(env, ['-p', 'start the job', '--yolo', '--output-format', 'json']);
  t.is(r.code, 0, r.stderr);
  t.is(await readFile(path.join(env.root, 'out.txt'), 'utf8'), 'drained\n', 'the task ran to its end before the exit');
  t.like(JSON.parse(r.stdout), { result: 'started it', reason: 'completed', num_turns: 1 });
  t.is(env.llm.requests.length, 2);
});

test('steer (the default): each completion while the agent is idle starts exactly one follow-up turn (the engine\'s wake-up, origin task) that sees the task\'s result', async (t) => {
  const env = await printEnv(t);
  t.teardown(() => stopHeld(env, ['go1', 'go2']));
  env.llm.setScript(
    bash('b1', `${held('go1')}; echo first-is-41`), bash('b2', `${held('go2')}; echo second-is-42`), say('started both'),
    say('one is done'), say('both are done'),
  );
  const run = spawnPrint(env, ['-p', 'start the jobs', '--yolo', '--output-format', 'stream-json']);
  await until(() => framesOf(run, 'turn.ended').length === 1, 30_000, 'the first turn ends');
  await release(env, 'go1');
  await until(() => framesOf(run, 'turn.ended').length === 2, 30_000, 'the follow-up turn of the first task ends');
  await release(env, 'go2');
  t.is(await run.exited, 0, run.stderr());
  const frames = jsonLines(run.stdout());
  t.like(frames.at(-1), { type: 'result', result: 'both are done', reason: 'completed', num_turns: 3 });
  // Exactly one follow-up turn per completion: two more model requests, two prompts from the engine's wake-ups.
  t.is(env.llm.requests.length, 5);
  t.is(frames.filter((f) => f.type === 'turn.started').length, 3);
  t.deepEqual(frames.filter((f) => f.type === 'prompt.accepted').map((f) => f.payload.source ?? 'user'), ['user', 'task', 'task']);
  t.true(bodyText(env.llm.requests[3]!.body).includes('first-is-41'), 'the first note reaches the model');
  t.true(bodyText(env.llm.requests[4]!.body).includes('second-is-42'), 'the second note reaches the model');
});

test('steer with --max-turns 1: one follow-up turn, then exit 1 naming print_max_turns; the task still running is stopped', async (t) => {
  const env = await printEnv(t);
  t.teardown(() => stopHeld(env, ['go1', 'go2']));
  env.llm.setScript(bash('b1', `${held('go1')}; echo first`), bash('b2', `${held('go2')}; echo second`), say('started both'), say('one is done'));
  const run = spawnPrint(env, ['-p', 'start the jobs', '--yolo', '--max-turns', '1', '--output-format', 'stream-json']);
  await until(() => framesOf(run, 'turn.ended').length === 1, 30_000, 'the first turn ends');
  await release(env, 'go1');
  t.is(await run.exited, 1, run.stderr());
  const frames = jsonLines(run.stdout());
  t.like(frames.at(-1), { type: 'result', result: 'one is done', reason: 'completed', num_turns: 2, error: { kind: 'print_max_turns' } });
  t.is(frames.filter((f) => f.type === 'turn.started').length, 2);
  t.regex(run.stderr(), /print_max_turns \(1\)/);
  t.is(env.llm.requests.length, 4);
  const pid = await pidIn(env.root, 'go2.pid');
  await until(() => !alive(pid), 30_000, 'the second task is stopped');
});

test('steer with --max-turns 0: no follow-up turn; exit 1 naming print_max_turns, the task stopped', async (t) => {
  const env = await printEnv(t);
  env.llm.setScript(bash('b1', 'echo $$ > task.pid; sleep 60'), say('started it'));
  const r = await runPrint(env, ['-p', 'start the job', '--yolo', '--max-turns', '0']);
  t.is(r.code, 1);
  t.is(r.stdout, '', 'text prints the answer only when the run completed');
  t.regex(r.stderr, /print_max_turns \(0\)/);
  const pid = await pidIn(env.root, 'task.pid');
  t.teardown(() => { try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ } });
  await until(() => !alive(pid), 30_000);
});

test('drain bounded by print_wait_ceiling_s: exit 1 naming the ceiling, the task stopped', async (t) => {
  const env = await printEnv(t, '[background]\nprint_background_mode = "drain"\nprint_wait_ceiling_s = 1');
  env.llm.setScript(bash('b1', 'echo $$ > task.pid; sleep 60'), say('started it'));
  const r = await runPrint(env, ['-p', 'start the job', '--yolo', '--output-format', 'json']);
  t.is(r.code, 1);
  t.like(JSON.parse(r.stdout), { reason: 'completed', error: { kind: 'print_wait_ceiling' } });
  t.regex(r.stderr, /print_wait_ceiling_s \(1 s\)/);
  const pid = await pidIn(env.root, 'task.pid');
  t.teardown(() => { try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ } });
  await until(() => !alive(pid), 30_000);
});

test('manual mode: a call needing approval is refused (stderr says so, the model gets a rejection it can act on); a question is dismissed', async (t) => {
  const env = await printEnv(t);
  env.llm.setScript(
    bash('b1', 'echo hi > nope.txt', false),
    { events: [{ tool_call: { id: 'q1', name: 'AskUserQuestion', args: { questions: [{ question: 'Which color?', header: 'Color', options: [{ label: 'Red' }, { label: 'Blue' }] }] } } }] },
    say('gave up'),
  );
  const r = await runPrint(env, ['-p', 'write the file', '--permission-mode', 'manual']);
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, 'gave up\n');
  t.regex(r.stderr, /^svc-code: refused Bash \(.*\): echo hi > nope\.txt; print mode cannot ask for approval/m);
  t.regex(r.stderr, /^svc-code: dismissed a question \(print mode cannot answer it\): Which color\?/m);
  t.true(bodyText(env.llm.requests[1]!.body).includes('runs non-interactively (print mode)'));
  await t.throwsAsync(readFile(path.join(env.root, 'nope.txt')));
});

test('Ctrl-C: the turn is aborted and journaled as cancelled; exit 130', async (t) => {
  const env = await printEnv(t);
  env.llm.setScript({ kind: 'hang' });
  const run = spawnPrint(env, ['-p', 'think hard', '--output-format', 'stream-json']);
  await until(() => env.llm.requests.length > 0, 30_000);
  run.child.kill('SIGINT');
  t.is(await run.exited, 130);
  t.regex(run.stderr(), /interrupted: aborting the turn/);
  const lines = run.stdout().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  t.like(lines.find((f) => f.type === 'turn.ended').payload, { reason: 'cancelled' });
  t.like(lines.at(-1), { type: 'result', reason: 'cancelled', error: { kind: 'interrupted' } });
});
