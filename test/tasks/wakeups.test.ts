import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { scripts, type StreamReply } from '../../fixtures/llm/index.ts';
import { journal, prompt, turnEnded, YOLO, type EngineEnv } from '../helpers/engine.ts';
import { pairingProblems, PROTOCOLS, startOn } from '../helpers/protocols.ts';
import { until } from '../helpers/wait.ts';

// Background work that ends reaches the agent (issue 23 item 6): between the steps of a running turn, before the
// next model request; or, when the agent is idle, as a follow-up turn whose transcript origin is `task`.

const say = (text: string): StreamReply => ({ events: [{ text }] });
const bash = (id: string, command: string, background = false) => ({ tool_call: { id, name: 'Bash', args: { command, ...(background ? { run_in_background: true } : {}) } } });
/** A shell fragment that waits until the test creates `name` in the session's directory. */
const held = (name: string) => `while [ ! -f ${name} ]; do sleep 0.05; done`;
const cwdOf = (env: EngineEnv) => env.s.sessions.get(env.sid)!.cwd;
const release = (env: EngineEnv, name: string) => writeFile(path.join(cwdOf(env), name), '');
const waiting = (env: EngineEnv) => env.s.notes.waiting(env.sid);
const taskIdOf = async (env: EngineEnv, callId: string) => {
  const r = (await journal(env)).find((e) => e.type === 'tool.result' && e.payload.tool_call_id === callId)!;
  return /task_[0-9A-Z]+/.exec(r.payload.content)![0];
};
const turns = async (env: EngineEnv) => (await env.s.get(`/api/v1/sessions/${env.sid}/transcript?agent_id=main`)).data.items.filter((i: any) => i.kind === 'turn');
const followUps = async (env: EngineEnv) => (await journal(env)).filter((e) => e.type === 'prompt.accepted' && e.payload.source === 'task');
const lastMessages = (body: any, n: number) => JSON.stringify(body.messages.slice(-n));

for (const protocol of PROTOCOLS) {
  test(`${protocol}: a background task ending after the turn starts a follow-up turn (origin task) and the model sees its output`, async (t) => {
    const env = await startOn(t, protocol, YOLO);
    env.llm.setScript({ events: [bash('b1', 'sleep 2; echo done', true)] }, say('started it'), say('the tests are done'));
    await prompt(env, 'run the tests in the background and tell me');
    t.is((await turnEnded(env, 1)).payload.reason, 'completed');
    const id = await taskIdOf(env, 'b1');
    t.is((await turnEnded(env, 2, 30_000)).payload.reason, 'completed');
    const req = env.llm.requests[2]!;
    t.deepEqual(pairingProblems(req), []);
    const note = lastMessages(req.body, 1);
    t.true(note.includes(`Background task ${id}`), note);
    t.regex(note, /status completed, exit code 0/);
    t.regex(note, /done/);
    const follow = (await turns(env))[1];
    t.like(follow, { state: 'completed', origin: { kind: 'task', taskId: id, payload: { kind: 'task_notification', taskIds: [id] } } });
    t.regex(follow.prompt, /<task-notification>/);
    const users = (await env.s.get(`/api/v1/sessions/${env.sid}/transcript/user-messages?agent_id=main`)).data.agents[0].messages;
    t.deepEqual(users.map((u: any) => u.origin), ['user', 'task_notification']);
    // The session's last prompt stays the user's.
    t.is((await env.s.get(`/api/v1/sessions/${env.sid}`)).data.last_prompt, 'run the tests in the background and tell me');
  });
}

test('a task ending while a turn runs: its note joins that turn after the step\'s tool results, before the next request; no follow-up turn', async (t) => {
  const env = await startOn(t, 'chat_compat', YOLO);
  t.teardown(() => Promise.all([release(env, 'go1'), release(env, 'go2')]));
  env.llm.setScript(
    { events: [bash('b1', `${held('go1')}; echo bg-out`, true)] },
    { events: [bash('f1', `touch fg-running; ${held('go2')}; echo fg-out`)] },
    say('both seen'),
  );
  await prompt(env, 'go');
  await until(async () => (await journal(env)).some((e) => e.type === 'tool.call.started' && e.payload.tool_call_id === 'f1'), 20_000, 'the foreground call');
  await release(env, 'go1');
  await until(() => waiting(env) === 1, 20_000, 'the note waiting for the running turn');
  await release(env, 'go2');
  t.is((await turnEnded(env, 1)).payload.reason, 'completed');
  const req = env.llm.requests[2]!;
  t.deepEqual(pairingProblems(req), []);
  const [call, result, note] = req.body.messages.slice(-3);
  t.is(call.tool_calls[0].id, 'f1');
  t.like(result, { role: 'tool', tool_call_id: 'f1' });
  t.is(note.role, 'user');
  t.regex(JSON.stringify(note), /bg-out/);
  t.is(waiting(env), 0);
  t.deepEqual(await followUps(env), []);
  // In the transcript the note is a user frame of that turn, with its task.
  const id = await taskIdOf(env, 'b1');
  const frames = (await turns(env))[0].steps.flatMap((s: any) => s.frames);
  t.true(frames.some((f: any) => f.kind === 'text' && f.role === 'user' && f.taskId === id));
});

test('two tasks ending together make one follow-up turn, each note with its status, exit code and output; no further turn follows', async (t) => {
  const env = await startOn(t, 'messages_api', YOLO);
  t.teardown(() => release(env, 'go'));
  env.llm.setScript({ events: [bash('a1', `${held('go')}; echo one`, true), bash('a2', `${held('go')}; echo two; exit 3`, true)] }, scripts.hang);
  await prompt(env, 'start two');
  await until(() => env.llm.requests.length === 2, 20_000, 'the second request');
  await release(env, 'go');
  await until(() => waiting(env) === 2, 20_000, 'both notes waiting for the running turn');
  env.llm.setScript(say('both finished'));
  await env.s.post(`/api/v1/sessions/${env.sid}:abort`, {});
  t.is((await turnEnded(env, 1)).payload.reason, 'cancelled');
  t.is((await turnEnded(env, 2, 30_000)).payload.reason, 'completed');
  const [one, two] = [await taskIdOf(env, 'a1'), await taskIdOf(env, 'a2')];
  const req = env.llm.requests[2]!;
  t.deepEqual(pairingProblems(req), []);
  const notes = lastMessages(req.body, 1);
  t.regex(notes, new RegExp(`${one}[^]*status completed, exit code 0[^]*one`));
  t.regex(notes, new RegExp(`${two}[^]*status failed, exit code 3[^]*two`));
  t.is((await followUps(env)).length, 1);
  t.deepEqual([...(await turns(env))[1].origin.payload.taskIds].sort(), [one, two].sort());
  // The user's next prompt is the next turn: nothing else was queued.
  env.llm.setScript(say('ok'));
  await prompt(env, 'next');
  t.is((await turnEnded(env, 3)).payload.reason, 'completed');
  t.like((await turns(env))[2], { origin: { kind: 'user' }, prompt: 'next' });
  t.is((await followUps(env)).length, 1);
});

test('a queued prompt goes first: its turn takes the notes before its first request; no follow-up turn', async (t) => {
  const env = await startOn(t, 'chat_compat', YOLO);
  t.teardown(() => release(env, 'go'));
  env.llm.setScript({ events: [bash('b1', `${held('go')}; echo queued-out`, true)] }, scripts.hang);
  await prompt(env, 'first');
  await until(() => env.llm.requests.length === 2, 20_000, 'the second request');
  t.is((await prompt(env, 'second')).data.status, 'queued');
  await release(env, 'go');
  await until(() => waiting(env) === 1, 20_000, 'the note waiting');
  env.llm.setScript(say('second answered'));
  await env.s.post(`/api/v1/sessions/${env.sid}:abort`, {});
  t.is((await turnEnded(env, 2, 30_000)).payload.reason, 'completed');
  const req = env.llm.requests[2]!;
  t.deepEqual(pairingProblems(req), []);
  const [user, note] = req.body.messages.slice(-2);
  t.is(user.content, 'second');
  t.regex(JSON.stringify(note), /queued-out/);
  t.deepEqual(await followUps(env), []);
  t.like((await turns(env))[1], { origin: { kind: 'user' }, prompt: 'second' });
});

test('an archived session is not woken: its task\'s note waits for its next turn', async (t) => {
  const env = await startOn(t, 'chat_compat', YOLO);
  env.llm.setScript({ events: [bash('b1', 'sleep 30', true)] }, say('started'));
  await prompt(env, 'go');
  await turnEnded(env, 1);
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}:archive`, {})).code, 0);
  await until(async () => (await journal(env)).some((e) => e.type === 'task.terminated'), 20_000, 'the task killed by the archive');
  t.is(waiting(env), 1);
  t.deepEqual(await followUps(env), []);
});
