import { access, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { scripts, type StreamReply } from '../../fixtures/llm/index.ts';
import { journal, prompt, turnEnded, type EngineEnv } from '../helpers/engine.ts';
import { pairingProblems, PROTOCOLS, startOn } from '../helpers/protocols.ts';
import { until } from '../helpers/wait.ts';

// Stop (POST :abort) while the first of a step's tool calls runs: the calls after it never start, each still gets
// a result (the history stays valid), and nothing they would have written lands. Issue 23 item 4.

const MODES = { manual: 'default_permission_mode = "manual"', auto: 'default_permission_mode = "auto"', yolo: 'default_permission_mode = "yolo"' };

/** A PreToolUse hook on Write that holds the call (it runs) until the test lets go: the first Write is surely running at the Stop. */
const SLOW_WRITE = `
[[hooks]]
event = "PreToolUse"
matcher = "Write"
command = "touch hook-started; while [ ! -f release ]; do sleep 0.05; done"
timeout = 120`;

const writes = (...names: string[]): StreamReply => ({
  events: names.map((n, i) => ({ tool_call: { id: `w${i + 1}`, name: 'Write', args: { file_path: `${n}.txt`, content: n } } })),
});

const cwdOf = (env: EngineEnv) => env.s.sessions.get(env.sid)!.cwd;
/** Lets a held hook or command go when the test ends (a Stop kills them; this is for a failing test). */
const releaseAtEnd = (t: ExecutionContext, env: EngineEnv) => t.teardown(() => writeFile(path.join(cwdOf(env), 'release'), ''));
const exists = (file: string) => access(file).then(() => true, () => false);
const abort = (env: EngineEnv) => env.s.post(`/api/v1/sessions/${env.sid}:abort`, {});
const toolMessage = async (env: EngineEnv) => (await journal(env)).find((e) => e.type === 'message.created' && e.payload.message.role === 'tool')!.payload.message;
const started = async (env: EngineEnv) => (await journal(env)).filter((e) => e.type === 'tool.call.started').map((e) => e.payload.tool_call_id);

/** What every Stop leaves: a cancelled turn, no file written, w1 the only call started, a result for each call. */
async function assertStopped(t: ExecutionContext, env: EngineEnv) {
  t.is((await turnEnded(env, 1)).payload.reason, 'cancelled');
  for (const n of ['a', 'b', 'c']) t.false(await exists(path.join(cwdOf(env), `${n}.txt`)), `${n}.txt written after Stop`);
  t.deepEqual(await started(env), ['w1'], 'the calls after the running one never start');
  const results = (await toolMessage(env)).content;
  t.deepEqual(results.map((r: any) => [r.tool_use_id, r.is_error]), [['w1', true], ['w2', true], ['w3', true]]);
  for (const r of results.slice(1)) t.regex(r.content, /^\[aborted\] The user stopped the turn before this tool call ran/);
  // Their transcript frames end too: one tool.result per call.
  t.deepEqual((await journal(env)).filter((e) => e.type === 'tool.result').map((e) => e.payload.tool_call_id), ['w1', 'w2', 'w3']);
}

/** The prompt after a Stop runs on a history the provider accepts. */
async function assertNextPromptWorks(t: ExecutionContext, env: EngineEnv) {
  env.llm.setScript(scripts.helloText);
  t.is((await prompt(env, 'next')).code, 0);
  t.is((await turnEnded(env, 2)).payload.reason, 'completed');
  const req = env.llm.requests.at(-1)!;
  t.deepEqual(pairingProblems(req), []);
  t.true(JSON.stringify(req.body).includes('[aborted]'));
}

for (const protocol of PROTOCOLS) {
  test(`${protocol}: Stop while the first of 3 Writes runs: b.txt and c.txt are not written; the next prompt works`, async (t) => {
    const env = await startOn(t, protocol, `${MODES.yolo}\n${SLOW_WRITE}`);
    releaseAtEnd(t, env);
    env.llm.setScript(writes('a', 'b', 'c'));
    await prompt(env, 'write three files');
    await until(() => exists(path.join(cwdOf(env), 'hook-started')), 20_000, 'the first Write running');
    t.is((await abort(env)).code, 0);
    await assertStopped(t, env);
    await assertNextPromptWorks(t, env);
  });
}

test('auto mode: Stop while the first Write runs keeps all three from landing', async (t) => {
  const env = await startOn(t, 'chat_compat', `${MODES.auto}\n${SLOW_WRITE}`);
  releaseAtEnd(t, env);
  env.llm.setScript(writes('a', 'b', 'c'));
  await prompt(env, 'write three files');
  await until(() => exists(path.join(cwdOf(env), 'hook-started')), 20_000, 'the first Write running');
  await abort(env);
  await assertStopped(t, env);
  t.regex((await toolMessage(env)).content[0].content, /^\[aborted\]/);
});

test('manual mode: Stop while the first Write waits for approval: the approval is cancelled, no other call asks or starts', async (t) => {
  const env = await startOn(t, 'messages_api', MODES.manual);
  env.llm.setScript(writes('a', 'b', 'c'));
  await prompt(env, 'write three files');
  await until(async () => (await env.s.get(`/api/v1/sessions/${env.sid}/approvals?status=pending`)).data.items.length === 1, 20_000, 'the approval');
  await abort(env);
  await assertStopped(t, env);
  const events = await journal(env);
  t.is(events.filter((e) => e.type === 'event.approval.requested').length, 1);
  t.like(events.find((e) => e.type === 'event.approval.resolved')!.payload, { tool_call_id: 'w1', decision: 'cancelled', reason: 'turn_aborted' });
  await assertNextPromptWorks(t, env);
});

test('yolo: Stop while a Bash command runs: it is killed and the Writes after it never start', async (t) => {
  const env = await startOn(t, 'chat_compat', MODES.yolo);
  releaseAtEnd(t, env);
  env.llm.setScript({
    events: [
      { tool_call: { id: 'w1', name: 'Bash', args: { command: 'touch running; while [ ! -f release ]; do sleep 0.05; done' } } },
      { tool_call: { id: 'w2', name: 'Write', args: { file_path: 'b.txt', content: 'b' } } },
      { tool_call: { id: 'w3', name: 'Write', args: { file_path: 'c.txt', content: 'c' } } },
    ],
  });
  await prompt(env, 'go');
  await until(() => exists(path.join(cwdOf(env), 'running')), 20_000, 'the command running');
  await abort(env);
  await assertStopped(t, env);
  t.regex((await toolMessage(env)).content[0].content, /\[aborted; process group killed\]/);
  await assertNextPromptWorks(t, env);
});

// The gate itself never allows a call of an aborted turn, whatever the mode (and asks nothing).
for (const [mode, line] of Object.entries(MODES)) {
  test(`permission gate, ${mode} mode: an aborted turn's call is denied before any allow`, async (t) => {
    const env = await startOn(t, 'chat_compat', line);
    const gate = env.s.permissions;
    const ctl = new AbortController();
    ctl.abort();
    for (const call of [{ id: 'x1', name: 'Write', input: { file_path: 'a.txt', content: 'a' } }, { id: 'x2', name: 'Read', input: { file_path: 'a.txt' } }]) {
      const d = await gate.check(env.sid, call, { agentId: 'main', readOnly: call.name === 'Read' }, ctl.signal);
      t.like(d, { decision: 'deny', message: 'Permission request cancelled: the turn was aborted.' });
    }
    t.deepEqual(gate.pendingItems(env.sid), []);
    t.false((await journal(env)).some((e) => e.type === 'event.approval.requested'));
  });
}
