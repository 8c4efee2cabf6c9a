import { readFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, turnEnded, type EngineEnv } from '../helpers/engine.ts';
import { until } from '../helpers/wait.ts';

const YOLO = 'default_permission_mode = "yolo"';
const call = (id: string, name: string, args: unknown) => ({ events: [{ tool_call: { id, name, args } }] });
const cwdOf = (env: EngineEnv) => env.s.sessions.get(env.sid)!.cwd;
const status = async (env: EngineEnv) => (await env.s.get(`/api/v1/sessions/${env.sid}/status`)).data;
const PLAN = '# Plan\n\n1. Add `out.txt`\n2. Test it';

async function toolResult(env: EngineEnv, callId: string) {
  return (await journal(env)).find((e) => e.type === 'tool.result' && e.payload.tool_call_id === callId)!.payload;
}

async function pendingApproval(env: EngineEnv) {
  return until(async () => (await env.s.get(`/api/v1/sessions/${env.sid}/approvals?status=pending`)).data.items[0], 30_000);
}

/** EnterPlanMode in turn 1 (the model then answers). */
async function enterPlanMode(env: EngineEnv) {
  env.llm.setScript(call('e1', 'EnterPlanMode', {}), scripts.helloText);
  await prompt(env, 'plan first');
  await turnEnded(env, 1, 30_000);
}

/** Turn n: the model calls ExitPlanMode with PLAN; returns the pending plan review. */
async function exitPlanMode(env: EngineEnv, id: string) {
  env.llm.setScript(call(id, 'ExitPlanMode', { plan: PLAN }), scripts.helloText);
  await prompt(env, 'ready?');
  return pendingApproval(env);
}

test('EnterPlanMode turns plan_mode on (GET /status, journaled as a profile update) and a Write is denied even in yolo', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  t.false((await status(env)).plan_mode);
  await enterPlanMode(env);
  const entered = await toolResult(env, 'e1');
  t.false(entered.is_error);
  t.regex(entered.content, /Plan mode is on/);
  t.regex(entered.content, /ExitPlanMode/);
  t.true((await status(env)).plan_mode);
  t.is((await journal(env)).filter((e) => e.type === 'session.profile_updated').at(-1)!.payload.agent_config.plan_mode, true);
  env.llm.setScript(call('w1', 'Write', { file_path: 'out.txt', content: 'x' }), call('r1', 'Read', { file_path: 'nope.txt' }), scripts.helloText);
  await prompt(env, 'write it');
  await turnEnded(env, 2, 30_000);
  const denied = await toolResult(env, 'w1');
  t.true(denied.is_error);
  t.regex(denied.content, /plan mode is on/);
  t.regex(denied.content, /call ExitPlanMode with your plan first/);
  await t.throwsAsync(readFile(path.join(cwdOf(env), 'out.txt')));
  // Read-only tools still run (this one fails on the missing file, not on the gate).
  t.notRegex((await toolResult(env, 'r1')).content, /plan mode/);
});

test('plan_mode set through POST /profile also denies Bash in yolo; turning it off lets it run', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}/profile`, { agent_config: { plan_mode: true } })).code, 0);
  env.llm.setScript(call('b1', 'Bash', { command: 'touch made-it' }), scripts.helloText);
  await prompt(env, 'run it');
  await turnEnded(env, 1, 30_000);
  t.regex((await toolResult(env, 'b1')).content, /plan mode is on/);
  await t.throwsAsync(readFile(path.join(cwdOf(env), 'made-it')));
  await env.s.post(`/api/v1/sessions/${env.sid}/profile`, { agent_config: { plan_mode: false } });
  env.llm.setScript(call('b2', 'Bash', { command: 'touch made-it' }), scripts.helloText);
  await prompt(env, 'run it again');
  await turnEnded(env, 2, 30_000);
  t.false((await toolResult(env, 'b2')).is_error);
  t.is(await readFile(path.join(cwdOf(env), 'made-it'), 'utf8'), '');
});

test('ExitPlanMode opens a plan review; approving with a label ends plan mode and the model is told', async (t) => {
  const env = await startEngine(t, { extraToml: 'default_permission_mode = "manual"\ndefault_plan_mode = true' });
  t.true((await status(env)).plan_mode);
  const review = await exitPlanMode(env, 'x1');
  t.like(review, { tool_name: 'ExitPlanMode', tool_call_id: 'x1', agent_id: 'main', plan: PLAN });
  t.is(typeof review.turn_id, 'string');
  t.deepEqual(review.options.map((o: any) => o.label), ['Approve', 'Approve and auto-accept edits', 'Keep planning']);
  t.is((await env.s.get(`/api/v1/sessions/${env.sid}`)).data.pending_interaction, 'approval');
  const r = await env.s.post(`/api/v1/sessions/${env.sid}/approvals/${review.approval_id}`, { decision: 'approved', selected_label: 'Approve and auto-accept edits' });
  t.true(r.data.resolved);
  t.is((await turnEnded(env, 1, 30_000)).payload.reason, 'completed');
  const result = await toolResult(env, 'x1');
  t.false(result.is_error);
  t.regex(result.content, /approved your plan \(option "Approve and auto-accept edits"\)/);
  const st = await status(env);
  t.false(st.plan_mode);
  t.is(st.permission, 'auto');
  const resolved = (await journal(env)).find((e) => e.type === 'event.approval.resolved')!;
  t.like(resolved.payload, { tool_call_id: 'x1', decision: 'approved', selected_label: 'Approve and auto-accept edits' });
});

test('rejecting the plan with feedback keeps plan mode on and the model gets the feedback', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  await enterPlanMode(env);
  const review = await exitPlanMode(env, 'x2');
  await env.s.post(`/api/v1/sessions/${env.sid}/approvals/${review.approval_id}`, { decision: 'rejected', feedback: 'also cover the edge cases' });
  t.is((await turnEnded(env, 2, 30_000)).payload.reason, 'completed');
  t.true((await status(env)).plan_mode);
  const result = await toolResult(env, 'x2');
  t.regex(result.content, /keep planning/);
  t.regex(JSON.stringify(env.llm.requests.at(-1)!.body.messages), /also cover the edge cases/);
});

test('a cancelled plan review is a tool error and leaves plan mode on', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  await enterPlanMode(env);
  const review = await exitPlanMode(env, 'x3');
  await env.s.post(`/api/v1/sessions/${env.sid}/approvals/${review.approval_id}`, { decision: 'cancelled' });
  await turnEnded(env, 2, 30_000);
  const result = await toolResult(env, 'x3');
  t.true(result.is_error);
  t.regex(result.content, /plan review was cancelled/);
  t.true((await status(env)).plan_mode);
});
