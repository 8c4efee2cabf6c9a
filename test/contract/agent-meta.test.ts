import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { MODEL, prompt, startEngine } from '../helpers/engine.ts';
import { until } from '../helpers/wait.ts';
import * as v from 'valibot';
import { Item, Meta } from './transcript-schemas.ts';
import { connectClient, opsOf, restTranscript, sameAsRest, transcriptIdle } from './transcript-client.ts';

// spec/clients.md B5 and C2 "agent status": meta.agent (permission, thinkingEffort, usage, context, phase) and
// meta.modes, step llmTiming, retry maxAttempts; every value read through the real server, where GET /transcript
// and a client folding the transcript.ops batches must agree.

const call = (id: string, name: string, args: unknown) => ({ events: [{ tool_call: { id, name, args } }] });
const phasesOf = (ops: any[]) => ops.filter((o) => o.op === 'meta.merge' && o.meta.agent?.phase).map((o) => o.meta.agent.phase);

test('meta.agent carries permission, thinking, usage, context and the phase; meta.modes plan mode; steps carry llmTiming', async (t) => {
  const env = await startEngine(t, { extraToml: 'default_permission_mode = "manual"' });
  const { s, sid } = env;
  const c = await connectClient(s, sid);
  t.teardown(() => c.ws.close());
  const fresh = await sameAsRest(t, c, s, sid, 'a new session');
  t.deepEqual(fresh.meta.agent.phase, { kind: 'idle' });

  t.is((await s.post(`/api/v1/sessions/${sid}/profile`, { agent_config: { plan_mode: true } })).code, 0);
  t.deepEqual((await sameAsRest(t, c, s, sid, 'plan mode on')).meta.modes, { plan: {} });
  t.is((await s.post(`/api/v1/sessions/${sid}/profile`, { agent_config: { plan_mode: false } })).code, 0);
  t.false('plan' in (await sameAsRest(t, c, s, sid, 'plan mode off')).meta.modes, 'a null in meta.merge clears the mode');

  // A tool call waiting for an approval: the phase says so while it waits.
  env.llm.setScript(
    { ...call('w1', 'Write', { file_path: 'a.txt', content: 'a\n' }), usage: { input: 30, output: 5, cache_read: 2 } },
    { events: [{ text: 'one' }, { text: ' two' }, { text: ' three' }], usage: { input: 40, output: 3 }, delay_ms: 60 },
  );
  t.is((await prompt(env, { content: [{ type: 'text', text: 'write' }], thinking: 'off' })).code, 0);
  const approval = await until(async () => (await s.get(`/api/v1/sessions/${sid}/approvals?status=pending`)).data.items[0], 30_000);
  const waiting = await until(async () => {
    const d = await restTranscript(s, sid);
    return d.meta.agent.phase?.kind === 'awaiting_approval' ? d : undefined;
  }, 30_000);
  t.like(waiting.meta.agent.phase, { turnId: 0, step: 1, approval: { approvalId: approval.approval_id, toolCallId: 'w1', toolName: 'Write' } });
  await sameAsRest(t, c, s, sid, 'waiting for the approval');
  t.is((await s.post(`/api/v1/sessions/${sid}/approvals/${approval.approval_id}`, { decision: 'approved' })).code, 0);
  await transcriptIdle(s, sid);
  const d = await sameAsRest(t, c, s, sid, 'the turn ended');

  const agent = d.meta.agent;
  t.is(agent.permission, 'manual');
  t.is(agent.thinkingEffort, 'off');
  t.is(agent.model, MODEL);
  t.is(agent.maxContextTokens, 100000);
  t.true(agent.contextTokens > 0);
  t.is(agent.contextUsage, agent.contextTokens / 100000);
  const turn = d.items.find((i: any) => i.kind === 'turn');
  t.like(turn.steps[0].frames.find((f: any) => f.kind === 'tool'), { toolCallId: 'w1', display: { kind: 'file_io', operation: 'write', path: 'a.txt' } });
  const steps = turn.steps.map((x: any) => x.usage);
  t.deepEqual(steps, [{ inputOther: 30, output: 5, inputCacheRead: 2, inputCacheCreation: 0 }, { inputOther: 40, output: 3, inputCacheRead: 0, inputCacheCreation: 0 }]);
  const sum = { inputOther: 70, output: 8, inputCacheRead: 2, inputCacheCreation: 0 };
  t.deepEqual(agent.usage, { total: sum, currentTurn: sum, byModel: { [MODEL]: sum } });
  t.like(agent.phase, { kind: 'ended', turnId: 0, reason: 'completed', durationMs: turn.durationMs });
  t.is(agent.phase.at, Date.parse(turn.endedAt));
  t.deepEqual(phasesOf(opsOf(c)).map((p) => p.kind), ['running', 'tool_call', 'awaiting_approval', 'tool_call', 'running', 'ended']);

  // llmTiming: every measured value; the second reply paused 60 ms between its frames.
  for (const st of turn.steps) {
    t.deepEqual(Object.keys(st.llmTiming).sort(), ['llmClientConsumeMs', 'llmFirstTokenLatencyMs', 'llmRequestBuildMs', 'llmStreamDurationMs']);
    for (const x of Object.values(st.llmTiming)) t.true(typeof x === 'number' && x >= 0);
  }
  t.true(turn.steps[1].llmTiming.llmStreamDurationMs >= 100, JSON.stringify(turn.steps[1].llmTiming));

  // A second turn: currentTurn starts over, total and byModel keep counting; the profile's permission shows.
  t.is((await s.post(`/api/v1/sessions/${sid}/profile`, { agent_config: { permission_mode: 'yolo' } })).code, 0);
  env.llm.setScript(scripts.helloText);
  await prompt(env, 'again');
  await transcriptIdle(s, sid);
  const d2 = await sameAsRest(t, c, s, sid, 'a second turn');
  const one = { inputOther: 12, output: 3, inputCacheRead: 4, inputCacheCreation: 0 };
  const total = { inputOther: 82, output: 11, inputCacheRead: 6, inputCacheCreation: 0 };
  t.deepEqual(d2.meta.agent.usage, { total, currentTurn: one, byModel: { [MODEL]: total } });
  t.is(d2.meta.agent.permission, 'yolo');
  t.like(d2.meta.agent.phase, { kind: 'ended', turnId: 1, reason: 'completed' });
});

test('a retried step carries maxAttempts from loop_control; the phase shows the retry', async (t) => {
  const env = await startEngine(t, { extraToml: '[loop_control]\nmax_attempts_per_step = 4' });
  const c = await connectClient(env.s, env.sid);
  t.teardown(() => c.ws.close());
  env.llm.setScript(scripts.serverError, scripts.helloText);
  await prompt(env, 'retry once');
  await transcriptIdle(env.s, env.sid);
  const d = await sameAsRest(t, c, env.s, env.sid, 'after a retry');
  const retried = opsOf(c).find((o) => o.op === 'step.upsert' && o.step.retry)?.step.retry;
  t.like(retried, { failedAttempt: 1, nextAttempt: 2, maxAttempts: 4, errorName: 'transient', statusCode: 503 });
  const phase = phasesOf(opsOf(c)).find((p) => p.kind === 'retrying');
  t.like(phase, { turnId: 0, step: 1, stepId: 't0.1', failedAttempt: 1, nextAttempt: 2, maxAttempts: 4, statusCode: 503 });
  t.is(d.items[0].state, 'completed');
});

test('contract: the new shapes can fail (a streaming phase, a compaction marker without trigger, an unknown user payload)', (t) => {
  t.false(v.is(Meta, { agent: { phase: { kind: 'streaming' } } }));
  t.false(v.is(Meta, { agent: { permission: 'ask' } }));
  t.false(v.is(Meta, { agent: { usage: { total: { inputOther: 1 } } } }));
  t.true(v.is(Meta, { agent: { phase: { kind: 'ended', turnId: 0, reason: 'blocked', at: 1 }, usage: {} }, modes: { plan: { version: 2 } } }));
  t.false(v.is(Item, { kind: 'marker', markerId: 'm', marker: 'compaction', payload: { phase: 'completed' } }));
  t.false(v.is(Item, { kind: 'turn', turnId: 't0', ordinal: 0, state: 'running', origin: { kind: 'user', payload: { kind: 'nope' } }, steps: [] }));
  t.false(v.is(Item, { kind: 'turn', turnId: 't0', ordinal: 0, state: 'running', origin: { kind: 'task' }, steps: [] }), 'a task origin needs taskId');
});
