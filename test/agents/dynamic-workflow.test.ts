import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt } from '../helpers/engine.ts';
import { offered, resultOf, say, turnEnded, withSubLlm } from '../helpers/subagents.ts';

const workflowCall = (id: string, args: Record<string, unknown>) => ({ events: [{ tool_call: { id, name: 'AgentDynamicWorkflow', args } }] });
const profile = (env: any, on: boolean) => env.s.post(`/api/v1/sessions/${env.sid}/profile`, { agent_config: { dynamic_workflow_mode: on } });

test('AgentDynamicWorkflow is offered only in dynamic_workflow_mode and runs its agents in parallel into one report', async (t) => {
  const { env, sub } = await withSubLlm(t, '[dynamic_workflow]\ntimeout_ms = 2000');
  env.llm.setScript(say('plain'));
  await prompt(env, 'hi');
  await turnEnded(env);
  t.false(offered(env.llm.requests[0]!.body).includes('AgentDynamicWorkflow'));

  t.is((await profile(env, true)).code, 0);
  sub.setScript(say('answer A'), scripts.hang, say('answer C'));
  const tasks = ['a', 'b', 'c'].map((x) => ({ description: `task ${x}`, prompt: `do ${x}` }));
  env.llm.setScript(workflowCall('w1', { description: 'fan out', tasks }), say('done'));
  await prompt(env, 'go');
  await turnEnded(env, 2);
  const req = env.llm.requests[1]!.body;
  const tool = req.tools.find((x: any) => x.function.name === 'AgentDynamicWorkflow');
  t.truthy(tool);
  t.truthy(tool.function.parameters.properties.tasks.items.properties.model, 'a pool adds the model parameter (rule 3)');
  // In parallel: all three agents started before the first one settled.
  t.is(sub.requests.length, 3);
  const order = (await journal(env)).map((e) => e.type).filter((x) => x.startsWith('subagent.'));
  const firstSettled = order.findIndex((x) => x === 'subagent.completed' || x === 'subagent.failed');
  t.is(order.slice(0, firstSettled).filter((x) => x === 'subagent.started').length, 3);
  t.false(offered(sub.requests[0]!.body).includes('AgentDynamicWorkflow'));
  const r = await resultOf(env, 'w1');
  t.false(r.is_error);
  t.regex(r.content, /^Dynamic workflow "fan out": 3 agent\(s\), /);
  t.regex(r.content, /2 completed/);
  t.regex(r.content, /1 timed out/);
  t.regex(r.content, /answer A/);
  t.regex(r.content, /answer C/);
  t.regex(r.content, /\[dynamic_workflow\] timeout_ms \(2000 ms\)/);
  const failed = (await journal(env)).filter((e) => e.type === 'subagent.failed');
  t.is(failed.length, 1);
  t.is(failed[0]!.payload.reason, 'timed_out');
});

test('AgentDynamicWorkflow checks every task before starting any (unknown type, forced model)', async (t) => {
  const { env, sub } = await withSubLlm(t);
  await profile(env, true);
  env.llm.setScript(workflowCall('w1', { description: 'x', tasks: [{ description: 'ok', prompt: 'p' }, { description: 'bad', prompt: 'p', subagent_type: 'nope' }] }), say('done'));
  await prompt(env, 'go');
  await turnEnded(env);
  const r = await resultOf(env, 'w1');
  t.true(r.is_error);
  t.regex(r.content, /tasks\[1\]: unknown subagent_type "nope"/);
  t.is(sub.requests.length, 0);
  t.false((await journal(env)).some((e) => e.type === 'subagent.spawned'));
});

test('AgentDynamicWorkflow outside dynamic_workflow_mode is not available', async (t) => {
  const { env } = await withSubLlm(t);
  env.llm.setScript(workflowCall('w1', { description: 'x', tasks: [{ description: 'a', prompt: 'p' }] }), say('done'));
  await prompt(env, 'go');
  await turnEnded(env);
  const r = await resultOf(env, 'w1');
  t.true(r.is_error);
  t.regex(r.content, /tool not available: AgentDynamicWorkflow/);
});
