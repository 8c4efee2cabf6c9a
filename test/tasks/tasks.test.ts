import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, turnEnded, YOLO, type EngineEnv } from '../helpers/engine.ts';
import { alive, runBash } from '../helpers/bash.ts';
import { until } from '../helpers/wait.ts';

const withBg = (lines: string) => `${YOLO}\n[background]\n${lines}`;

const bash = runBash;
const taskIdOf = (content: string) => /task_[0-9A-Z]+/.exec(content)![0];
const url = (env: EngineEnv, rest = '') => `/api/v1/sessions/${env.sid}/tasks${rest}`;
const getTask = async (env: EngineEnv, id: string, q = '') => (await env.s.get(url(env, `/${id}${q}`))).data;
const pidFile = async (env: EngineEnv, name: string) => Number(await readFile(path.join(env.s.sessions.get(env.sid)!.cwd, name), 'utf8'));
/** A shell fragment that waits until the test calls `release(env, name)` (no timing assumption on a loaded machine). */
const waitFor = (name: string) => `while [ ! -f ${name} ]; do sleep 0.05; done`;
const release = (env: EngineEnv, name: string) => writeFile(path.join(env.s.sessions.get(env.sid)!.cwd, name), '');

test('a running background task keeps the session busy after its turn ended (work_changed both ways)', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const r = await bash(env, { command: waitFor('go'), run_in_background: true });
  const id = taskIdOf(r.content);
  const session = async () => (await env.s.get(`/api/v1/sessions/${env.sid}`)).data;
  t.like(await session(), { busy: true, main_turn_active: false });
  t.true((await env.s.get(`/api/v1/sessions?busy=true`)).data.items.some((x: any) => x.id === env.sid));
  await release(env, 'go');
  await until(async () => (await getTask(env, id)).status === 'completed', 30_000);
  await until(async () => (await session()).busy === false, 30_000);
  const workFrames = () => env.ws.frames.filter((f) => f.type === 'event.session.work_changed' && f.payload.session_id === env.sid)
    .map((f) => [f.payload.busy, f.payload.main_turn_active]);
  // turn start, turn end while the task still runs (busy), task end (idle); the last frame may trail the HTTP answer.
  await until(() => workFrames().at(-1)?.[0] === false, 30_000);
  const work = workFrames();
  t.deepEqual(work.at(-1), [false, false]);
  t.true(work.some(([busy, main]) => busy === true && main === false));
});

test('a background task is listed running, then completed with its output on disk and a preview', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const command = `echo hello; ${waitFor('go')}; echo done`;
  const r = await bash(env, { command, run_in_background: true, description: 'greet' });
  t.false(r.is_error);
  const id = taskIdOf(r.content);
  const running = await env.s.get(url(env, '?status=running'));
  t.like(running.data.items[0], { id, session_id: env.sid, kind: 'bash', description: 'greet', status: 'running', command });
  await release(env, 'go');
  await until(async () => (await getTask(env, id)).status === 'completed', 30_000);
  const done = await getTask(env, id, '?with_output=true');
  t.is(done.output_preview, 'hello\ndone\n');
  t.is(done.output_bytes, 11);
  t.truthy(done.completed_at);
  t.is((await getTask(env, id, '?with_output=true&output_bytes=5')).output_preview, 'done\n');
  t.is(await readFile(path.join(env.s.home, 'tasks', env.sid, `${id}.log`), 'utf8'), 'hello\ndone\n');
  t.deepEqual((await env.s.get(url(env, '?status=running'))).data.items, []);
  t.is((await env.s.get(url(env, '?status=completed'))).data.items.length, 1);
  t.is((await env.s.get(url(env, '?status=bogus'))).code, 40001);
  t.is((await env.s.get(url(env, `/${id}?output_bytes=-1`))).code, 40001);
  const events = (await journal(env)).map((e) => e.type);
  t.true(events.includes('task.started') && events.includes('task.terminated'));
  t.true(env.ws.frames.some((f) => f.type === 'shell.output' && f.payload.task_id === id));
});

test('cancel kills the process group; a second cancel is 40904; detach of a background task is a no-op', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const r = await bash(env, { command: '(trap "" TERM; sleep 30) & echo $! > child.pid; sleep 30', run_in_background: true });
  const id = taskIdOf(r.content);
  await until(async () => { try { return (await pidFile(env, 'child.pid')) > 0; } catch { return false; } }, 5000);
  const child = await pidFile(env, 'child.pid');
  const detach = await env.s.post(url(env, `/${id}:detach`), {});
  t.deepEqual(detach.data, { detached: false, status: 'running' });
  t.deepEqual((await env.s.post(url(env, `/${id}:cancel`), {})).data, { cancelled: true });
  await until(async () => (await getTask(env, id)).status === 'cancelled', 30_000);
  await until(() => !alive(child), 30_000);
  t.false(alive(child));
  const again = await env.s.post(url(env, `/${id}:cancel`), {});
  t.is(again.code, 40904);
  t.deepEqual(again.data, { cancelled: false });
  t.is(again.details.current_status, 'cancelled');
  t.is((await env.s.get(url(env, '/task_NOPE'))).code, 40406);
  t.is((await env.s.post(url(env, '/task_NOPE:cancel'), {})).code, 40406);
});

test('a foreground timeout moves the command to the background', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  // 10 s for the shell to start and print (2 s was too little at load 20); the command then waits for the test.
  const r = await bash(env, { command: `echo begun; ${waitFor('go')}; echo finished`, timeout: 10_000 });
  t.false(r.is_error);
  t.regex(r.content, /^begun\n\[timed out after 10000 ms; moved to background as task task_\w+/);
  const id = taskIdOf(r.content);
  t.is((await getTask(env, id)).status, 'running');
  await release(env, 'go');
  await until(async () => (await getTask(env, id)).status === 'completed', 30_000);
  t.is((await getTask(env, id, '?with_output=1')).output_preview, 'begun\nfinished\n');
});

test('bash_task_timeout_s kills a background task and reports failed', async (t) => {
  const env = await startEngine(t, { extraToml: withBg('bash_task_timeout_s = 1\nkill_grace_period_ms = 200') });
  const r = await bash(env, { command: 'sleep 30', run_in_background: true });
  const id = taskIdOf(r.content);
  await until(async () => (await getTask(env, id)).status === 'failed', 30_000);
  t.is((await getTask(env, id)).status, 'failed');
});

test('max_running_tasks refuses one more background task', async (t) => {
  const env = await startEngine(t, { extraToml: withBg('max_running_tasks = 1') });
  const first = await bash(env, { command: 'sleep 30', run_in_background: true }, 1);
  t.false(first.is_error);
  const second = await bash(env, { command: 'sleep 30', run_in_background: true }, 2);
  t.true(second.is_error);
  t.regex(second.content, /max_running_tasks \(1\) reached/);
  t.is((await env.s.get(url(env))).data.items.length, 1);
});

test('archiving the session kills its tasks', async (t) => {
  const env = await startEngine(t, { extraToml: withBg('kill_grace_period_ms = 300') });
  await bash(env, { command: 'echo $$ > a.pid; sleep 30', run_in_background: true }, 1);
  await until(async () => { try { return (await pidFile(env, 'a.pid')) > 0; } catch { return false; } }, 5000);
  const a = await pidFile(env, 'a.pid');
  t.true(alive(a));
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}:archive`, {})).code, 0);
  await until(() => !alive(a), 30_000);
  t.false(alive(a));
});

test('daemon stop kills running tasks; a cold session lists none', async (t) => {
  const env = await startEngine(t, { extraToml: withBg('kill_grace_period_ms = 300') });
  await bash(env, { command: 'echo $$ > b.pid; sleep 30', run_in_background: true }, 1);
  await until(async () => { try { return (await pidFile(env, 'b.pid')) > 0; } catch { return false; } }, 5000);
  const b = await pidFile(env, 'b.pid');
  t.is((await env.s.get(url(env))).data.items.length, 1);
  const again = await env.s.restart();
  t.teardown(() => again.stop());
  t.false(alive(b));
  const cold = await again.get(`/api/v1/sessions/${env.sid}/tasks`);
  t.deepEqual(cold.data, { items: [] });
});

test('detach moves a running foreground command to the background; the tool call returns at once', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const command = `echo fg; ${waitFor('go')}; echo end`;
  env.llm.setScript({ events: [{ tool_call: { id: 'f1', name: 'Bash', args: { command, timeout: 60_000 } } }] }, scripts.helloText, scripts.helloText);
  await prompt(env, 'run');
  const item = await until(async () => (await env.s.get(url(env))).data.items[0], 30_000);
  t.like(item, { status: 'running', command });
  t.deepEqual((await env.s.post(url(env, `/${item.id}:detach`), {})).data, { detached: true, status: 'running' });
  await turnEnded(env, 1, 30_000);
  const result = (await journal(env)).find((e) => e.type === 'tool.result' && e.payload.tool_call_id === 'f1')!.payload;
  t.regex(result.content, new RegExp(`\\[detached; moved to background as task ${item.id}`));
  t.is((await getTask(env, item.id)).status, 'running');
  await release(env, 'go');
  await until(async () => (await getTask(env, item.id)).status === 'completed', 30_000);
  t.deepEqual((await env.s.post(url(env, `/${item.id}:detach`), {})).data, { detached: false, status: 'completed' });
});

test('a completion after the turn reaches the agent as a task notification: a follow-up turn, the note with status, exit code and output', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  t.teardown(() => release(env, 'go'));
  const r = await bash(env, { command: `${waitFor('go')}; echo note`, run_in_background: true }, 1);
  const id = taskIdOf(r.content);
  env.llm.setScript(scripts.helloText);
  await release(env, 'go');
  await turnEnded(env, 2, 30_000);
  const note = (await journal(env)).find((e) => e.type === 'message.created' && e.payload.message.metadata?.task_notification)!;
  t.like(note.payload.message.metadata.task_notification, { task_id: id, status: 'completed', exit_code: 0, output_bytes: 5 });
  t.is(note.payload.message.prompt_id, (await journal(env)).find((e) => e.type === 'prompt.accepted' && e.payload.source === 'task')!.payload.prompt_id);
  const last = JSON.stringify(env.llm.requests.at(-1)!.body);
  t.true(last.includes(`Background task ${id}`));
  t.true(last.includes('Output (5 bytes):\\nnote\\n[end of output]'));
  t.is(env.ws.frames.filter((f) => f.type === 'turn.started').length, 2);
});

test('a completion waiting for a busy turn is journaled when the daemon stops: after a restart the note is there', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const r = await bash(env, { command: waitFor('go'), run_in_background: true }, 1);
  const id = taskIdOf(r.content);
  env.llm.setScript({ kind: 'hang' });
  await prompt(env, 'keep busy');
  await until(() => env.ws.frames.filter((f) => f.type === 'turn.started').length === 2, 30_000);
  await release(env, 'go');
  await until(async () => (await getTask(env, id)).status === 'completed', 30_000);
  // The note is queued as task.terminated is journaled (a stop before that drops it on purpose: tasks.closeAll).
  await until(() => env.s.notes.waiting(env.sid) === 1, 30_000, 'the note waiting for the turn');
  const noteOf = (events: Array<{ type: string; payload: any }>) => events.find((e) => e.type === 'message.created' && e.payload.message.metadata?.task_notification?.task_id === id);
  t.is(noteOf(await journal(env)), undefined, 'the note waits for the running turn to end');
  const again = await env.s.restart();
  t.teardown(() => again.stop());
  const note = noteOf(await again.eventsOf(env.sid));
  t.like(note?.payload.message.metadata.task_notification, { task_id: id, status: 'completed' });
});

test('keep_alive_on_exit leaves running tasks alive when the daemon stops, still writing their output', async (t) => {
  const env = await startEngine(t, { extraToml: withBg('keep_alive_on_exit = true') });
  await bash(env, { command: 'echo $$ > k.pid; while true; do echo tick; sleep 0.05; done', run_in_background: true }, 1);
  await until(async () => { try { return (await pidFile(env, 'k.pid')) > 0; } catch { return false; } }, 5000);
  const k = await pidFile(env, 'k.pid');
  const task = env.s.tasks.list(env.sid)[0]!;
  const again = await env.s.restart();
  t.teardown(async () => { try { process.kill(-k, 'SIGKILL'); } catch { /* gone */ } await again.stop(); });
  // Output written after the daemon is gone still lands in the log, and the writer is not killed by it.
  const sizeAfterStop = (await stat(task.spec.logFile)).size;
  await until(async () => (await stat(task.spec.logFile)).size > sizeAfterStop + 40, 30_000);
  t.true(alive(k));
});
