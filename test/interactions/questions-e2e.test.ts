import { rm } from 'node:fs/promises';
import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, turnEnded, type EngineEnv } from '../helpers/engine.ts';
import { until } from '../helpers/wait.ts';

const MANUAL = 'default_permission_mode = "manual"';
const ask = (id: string, questions: unknown[]) => ({ events: [{ tool_call: { id, name: 'AskUserQuestion', args: { questions } } }] });
const color = { question: 'Which color?', header: 'Color', options: [{ label: 'Red', description: 'warm' }, { label: 'Blue' }] };
const qurl = (env: EngineEnv) => `/api/v1/sessions/${env.sid}/questions`;

async function pendingQuestion(env: EngineEnv) {
  return until(async () => (await env.s.get(`${qurl(env)}?status=pending`)).data.items[0], 30_000);
}

async function toolResult(env: EngineEnv, callId: string) {
  return (await journal(env)).find((e) => e.type === 'tool.result' && e.payload.tool_call_id === callId)!.payload;
}

test('manual mode: AskUserQuestion waits without approval, the answer reaches the model and the turn completes', async (t) => {
  const env = await startEngine(t, { extraToml: MANUAL });
  env.llm.setScript(ask('a1', [color]), scripts.helloText);
  t.is((await prompt(env, 'ask me')).code, 0);
  const q = await pendingQuestion(env);
  t.like(q, { session_id: env.sid, agent_id: 'main', tool_call_id: 'a1' });
  t.is(typeof q.turn_id, 'string');
  t.deepEqual(q.questions, [{
    id: 'q_0', question: 'Which color?', header: 'Color', allow_other: true,
    options: [{ id: 'o_0', label: 'Red', description: 'warm' }, { id: 'o_1', label: 'Blue' }],
  }]);
  t.deepEqual((await env.s.get(`/api/v1/sessions/${env.sid}/approvals?status=pending`)).data.items, []);
  t.is((await env.s.get(`/api/v1/sessions/${env.sid}`)).data.pending_interaction, 'question');
  t.deepEqual((await env.s.get(`/api/v1/sessions/${env.sid}/snapshot`)).data.pending_questions.map((x: any) => x.question_id), [q.question_id]);
  const r = await env.s.post(`${qurl(env)}/${q.question_id}`, { answers: { q_0: { kind: 'single', option_id: 'o_1' } }, method: 'click', note: 'my favourite' });
  t.is(r.code, 0);
  t.true(r.data.resolved);
  t.is(typeof r.data.resolved_at, 'string');
  t.is((await turnEnded(env, 1, 30_000)).payload.reason, 'completed');
  const result = await toolResult(env, 'a1');
  t.false(result.is_error);
  t.regex(result.content, /Which color\?.*Blue/);
  t.regex(result.content, /my favourite/);
  t.is((await env.s.get(`/api/v1/sessions/${env.sid}`)).data.pending_interaction, 'none');
  const answered = (await journal(env)).find((e) => e.type === 'event.question.answered')!;
  t.like(answered.payload, { question_id: q.question_id, tool_call_id: 'a1', method: 'click', answers: { q_0: { kind: 'single', option_id: 'o_1' } } });
  const again = await env.s.post(`${qurl(env)}/${q.question_id}`, { answers: { q_0: { kind: 'skipped' } } });
  t.is(again.code, 40902);
  t.deepEqual(again.data, { resolved: false });
});

test('dismiss answers envelope code 40909 and the model is told the user dismissed the question', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(ask('a2', [color]), scripts.helloText);
  await prompt(env, 'ask me');
  const q = await pendingQuestion(env);
  const r = await env.s.post(`${qurl(env)}/${q.question_id}:dismiss`, {});
  t.is(r.code, 40909);
  t.true(r.data.dismissed);
  t.is(typeof r.data.dismissed_at, 'string');
  t.is((await turnEnded(env, 1, 30_000)).payload.reason, 'completed');
  const result = await toolResult(env, 'a2');
  t.true(result.is_error);
  t.regex(result.content, /dismissed/);
  t.like((await journal(env)).find((e) => e.type === 'event.question.dismissed')!.payload, { question_id: q.question_id, reason: 'user' });
  const again = await env.s.post(`${qurl(env)}/${q.question_id}:dismiss`, {});
  t.is(again.code, 40902);
  t.deepEqual(again.data, { resolved: false });
  t.is((await env.s.post(`${qurl(env)}/qst_nope:dismiss`, {})).code, 40405);
});

test('1-4 questions and 2-4 options: violations are input-validation error results and ask nothing', async (t) => {
  const env = await startEngine(t);
  const five = Array.from({ length: 5 }, () => color);
  const oneOption = { question: 'Sure?', options: [{ label: 'Yes' }] };
  const fiveOptions = { question: 'Pick', options: ['a', 'b', 'c', 'd', 'e'].map((label) => ({ label })) };
  env.llm.setScript(ask('b1', five), ask('b2', [oneOption]), ask('b3', [fiveOptions]), ask('b4', []), scripts.helloText);
  await prompt(env, 'ask badly');
  t.is((await turnEnded(env, 1, 30_000)).payload.reason, 'completed');
  for (const id of ['b1', 'b2', 'b3', 'b4']) {
    const result = await toolResult(env, id);
    t.true(result.is_error, id);
    t.regex(result.content, /invalid input for AskUserQuestion/, id);
  }
  t.false((await journal(env)).some((e) => e.type === 'event.question.requested'));
});

test('a restart dismisses pending questions (daemon_restarted); answering afterwards is 40902', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(ask('c1', [color]), scripts.helloText);
  await prompt(env, 'ask me');
  const q = await pendingQuestion(env);
  const s2 = await env.s.restart();
  t.teardown(async () => {
    await s2.stop();
    await rm(s2.home, { recursive: true, force: true });
  });
  const env2 = { s: s2, sid: env.sid };
  const dismissed = (await journal(env2)).filter((e) => e.type === 'event.question.dismissed');
  t.is(dismissed.length, 1);
  t.like(dismissed[0]!.payload, { question_id: q.question_id, reason: 'daemon_restarted' });
  t.deepEqual((await s2.get(`/api/v1/sessions/${env.sid}/questions?status=pending`)).data.items, []);
  const r = await s2.post(`/api/v1/sessions/${env.sid}/questions/${q.question_id}`, { answers: { q_0: { kind: 'single', option_id: 'o_0' } } });
  t.is(r.code, 40902);
  t.is(s2.sessions.get(env.sid)!.pending_questions?.length ?? 0, 0);
});
