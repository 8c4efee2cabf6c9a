import { readFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, turnEnded, type EngineEnv } from '../helpers/engine.ts';
import { until } from '../helpers/wait.ts';

const cwdOf = (env: EngineEnv) => env.s.sessions.get(env.sid)!.cwd;

async function pendingApproval(env: EngineEnv) {
  return until(async () => {
    const r = await env.s.get(`/api/v1/sessions/${env.sid}/approvals?status=pending`);
    return r.data.items[0];
  }, 30_000);
}

test('manual mode: a Write in a turn waits for approval, runs once approved, and the turn completes', async (t) => {
  const env = await startEngine(t, { extraToml: 'default_permission_mode = "manual"' });
  env.llm.setScript({ events: [{ tool_call: { id: 'w1', name: 'Write', args: { file_path: 'out.txt', content: 'hi\n' } } }] }, scripts.helloText);
  t.is((await prompt(env, 'write it')).code, 0);
  const approval = await pendingApproval(env);
  t.is(approval.tool_name, 'Write');
  t.is(approval.tool_call_id, 'w1');
  t.is((await env.s.get(`/api/v1/sessions/${env.sid}`)).data.pending_interaction, 'approval');
  const r = await env.s.post(`/api/v1/sessions/${env.sid}/approvals/${approval.approval_id}`, { decision: 'approved' });
  t.true(r.data.resolved);
  const ended = await turnEnded(env, 1, 30_000);
  t.is(ended.payload.reason, 'completed');
  t.is(await readFile(path.join(cwdOf(env), 'out.txt'), 'utf8'), 'hi\n');
  t.is((await env.s.get(`/api/v1/sessions/${env.sid}`)).data.pending_interaction, 'none');
  const result = (await journal(env)).find((e) => e.type === 'tool.result')!;
  t.false(result.payload.is_error);
});

test('manual mode: a rejected Bash call never runs and the model gets the feedback', async (t) => {
  const env = await startEngine(t, { extraToml: 'default_permission_mode = "manual"' });
  env.llm.setScript({ events: [{ tool_call: { id: 'b1', name: 'Bash', args: { command: 'touch made-it' } } }] }, scripts.helloText);
  t.is((await prompt(env, 'run it')).code, 0);
  const approval = await pendingApproval(env);
  await env.s.post(`/api/v1/sessions/${env.sid}/approvals/${approval.approval_id}`, { decision: 'rejected', feedback: 'not now' });
  t.is((await turnEnded(env, 1, 30_000)).payload.reason, 'completed');
  await t.throwsAsync(readFile(path.join(cwdOf(env), 'made-it')));
  const result = (await journal(env)).find((e) => e.type === 'tool.result')!;
  t.true(result.payload.is_error);
  t.regex(JSON.stringify(result.payload.content), /not now/);
});
