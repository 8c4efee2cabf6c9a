import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, startEngine, type EngineEnv } from '../helpers/engine.ts';
import { newSession, serverFor } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

const goalOf = async (env: Pick<EngineEnv, 's' | 'sid'>) => (await env.s.get(`/api/v1/sessions/${env.sid}/goal`)).data;
const setGoal = (env: Pick<EngineEnv, 's' | 'sid'>, agent_config: Record<string, unknown>) => env.s.post(`/api/v1/sessions/${env.sid}/profile`, { agent_config });
const text = (t: string) => ({ events: [{ text: t }], usage: { input: 10, output: 5 } });
const waitGoal = (env: EngineEnv, pred: (g: any) => boolean, ms = 20_000) => until(async () => {
  const g = await goalOf(env);
  return g && pred(g) ? g : undefined;
}, ms);
const turnsEnded = async (env: EngineEnv) => (await journal(env)).filter((e) => e.type === 'turn.ended');

test('a goal set through the profile starts work and continues after each turn until the model calls GoalComplete; counts come from the journal', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(text('step one'), text('step two'), { events: [{ tool_call: { id: 'g1', name: 'GoalComplete', args: { summary: 'all done' } } }], usage: { input: 20, output: 5 } }, text('finished'));
  t.is((await setGoal(env, { goal_objective: 'Write the release notes' })).code, 0);
  const done = await waitGoal(env, (g) => g.status === 'complete' && g.turnsUsed === 3);
  t.like(done, { objective: 'Write the release notes', status: 'complete', terminalReason: 'completed', turnsUsed: 3, tokensUsed: 15 + 15 + 25 + 15 });
  t.true(done.wallClockMs >= 0);
  t.like(done.budget, { turns: { limit: 50, remaining: 47, reached: false }, tokens: null, wallClockMs: null });
  // The continuation is a prompt like any other: the model reads the objective and the tool to call.
  t.regex(JSON.stringify(env.llm.requests[1].body), /Continue working toward the session goal[\s\S]*Write the release notes[\s\S]*GoalComplete/);
  t.true(JSON.stringify(env.llm.requests[0].body).includes('"GoalComplete"'), 'the goal tool is offered while the goal is active');
  // Nothing more runs once complete.
  t.is((await turnsEnded(env)).length, 3);
  t.is(env.llm.requests.length, 4);
  const updates = (await journal(env)).filter((e) => e.type === 'goal.updated').map((e) => e.payload.goal);
  t.true(updates.length >= 5, 'goal.updated on every change');
  t.true(env.ws.frames.some((f) => f.type === 'goal.updated' && f.payload.goal.status === 'complete'));
});

test('a turn budget blocks the goal once reached; resume with the budget reached stays blocked; cancel completes it as cancelled', async (t) => {
  const env = await startEngine(t, { extraToml: '[goal]\nmax_turns = 2\nmax_tokens = 1000' });
  env.llm.setScript(text('a'), text('b'), text('never'));
  await setGoal(env, { goal_objective: 'Loop forever' });
  const g = await waitGoal(env, (x) => x.status === 'blocked');
  t.like(g, { turnsUsed: 2, tokensUsed: 30, terminalReason: 'budget_turns', budget: { turns: { limit: 2, remaining: 0, reached: true }, tokens: { limit: 1000, remaining: 970, reached: false } } });
  t.is(env.llm.requests.length, 2);
  await setGoal(env, { goal_control: 'resume' });
  t.like(await waitGoal(env, (x) => x.status === 'blocked'), { terminalReason: 'budget_turns' });
  t.is(env.llm.requests.length, 2, 'nothing runs past a reached budget');
  await setGoal(env, { goal_control: 'cancel' });
  t.like(await goalOf(env), { status: 'complete', terminalReason: 'cancelled' });
});

test('pause stops continuing after the running turn; resume picks up; a failed turn blocks the goal', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript({ events: [{ text: 'slow' }], usage: { input: 1, output: 1 }, end_delay_ms: 2000 }, text('resumed'), scripts.badRequest);
  await setGoal(env, { goal_objective: 'Keep going' });
  await until(async () => env.llm.requests.length === 1);
  await setGoal(env, { goal_control: 'pause' });
  await until(async () => (await turnsEnded(env)).length === 1);
  const paused = await goalOf(env);
  t.is(paused.status, 'paused');
  t.is(env.llm.requests.length, 1, 'a paused goal is not continued');
  await setGoal(env, { goal_control: 'resume' });
  const blocked = await waitGoal(env, (x) => x.status === 'blocked');
  t.like(blocked, { terminalReason: "turn_failed", turnsUsed: 3 }, "the paused turn counts: it started under the active goal");
  t.is((await turnsEnded(env)).at(-1)!.payload.reason, 'failed');
});

test('a daemon restart leaves an active goal paused, not lost; GET /goal is null without a goal', async (t) => {
  // No provider: the goal cannot start a turn, and stays active until the restart.
  const s = await serverFor(t);
  const sid = await newSession(s);
  t.is((await s.get(`/api/v1/sessions/${sid}/goal`)).data, null);
  await s.post(`/api/v1/sessions/${sid}/profile`, { agent_config: { goal_objective: 'Survive a restart' } });
  const before = (await s.get(`/api/v1/sessions/${sid}/goal`)).data;
  t.is(before.status, 'active');
  const again = await s.restart();
  t.teardown(() => again.stop());
  const after = (await again.get(`/api/v1/sessions/${sid}/goal`)).data;
  t.like(after, { goalId: before.goalId, objective: 'Survive a restart', status: 'paused' });
});
