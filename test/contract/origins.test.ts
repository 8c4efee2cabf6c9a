import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { prompt, startEngine, text } from '../helpers/engine.ts';
import { agentCall, say, withSubLlm, YOLO } from '../helpers/subagents.ts';
import { gate, until } from '../helpers/wait.ts';
import { connectClient, opsOf, restTranscript, sameAsRest, transcriptIdle } from './transcript-client.ts';

// spec/clients.md B2 (turn origin), B4 (prompt clientMetadata and statuses), B6 (skill / plan.revision markers),
// read through the real server: GET /transcript and a client folding the transcript.ops batches agree.

const turns = (d: any) => d.items.filter((i: any) => i.kind === 'turn');
const markers = (d: any, name: string) => d.items.filter((i: any) => i.kind === 'marker' && i.marker === name);

test('turn origins: a user prompt with its metadata and skills, a skill activation, a :btw agent, a subagent, a goal continuation; skill markers', async (t) => {
  const env = await startEngine(t, { extraToml: `${YOLO}\n[goal]\nmax_turns = 1` });
  const { s, sid } = env;
  const root = s.workspaceOf(sid).root;
  await mkdir(path.join(root, '.svc-code', 'skills', 'deploy'), { recursive: true });
  await writeFile(path.join(root, '.svc-code', 'skills', 'deploy', 'SKILL.md'), '---\nname: "deploy"\ndescription: "Deploys"\n---\nDEPLOY\n');
  const c = await connectClient(s, sid);
  t.teardown(() => c.ws.close());

  env.llm.setScript(scripts.helloText);
  const meta = { display_text: 'hello there', composer: { blocks: 1 } };
  const r = await prompt(env, { content: text('hello'), metadata: meta });
  await transcriptIdle(s, sid);
  let d = await sameAsRest(t, c, s, sid, 'a prompt with metadata');
  t.deepEqual(turns(d)[0].origin, { kind: 'user', payload: { kind: 'user', clientMetadata: [meta] } });
  t.deepEqual(d.prompts.find((p: any) => p.promptId === r.data.prompt_id).clientMetadata, [meta]);

  env.llm.setScript(scripts.helloText);
  t.is((await s.post(`/api/v1/sessions/${sid}/skills/deploy:activate`, { args: 'to staging' })).code, 0);
  await transcriptIdle(s, sid);
  d = await sameAsRest(t, c, s, sid, 'a skill activation');
  t.deepEqual(turns(d)[1].origin, { kind: 'user', payload: { kind: 'skill_activation', trigger: 'user-slash', skillName: 'deploy', skillArgs: 'to staging' } });
  t.like(markers(d, 'skill')[0].payload, { origin: { kind: 'skill_activation', trigger: 'user-slash', skillName: 'deploy', skillArgs: 'to staging' } });

  env.llm.setScript(scripts.helloText);
  await prompt(env, { content: text('deploy it'), skills: [{ name: 'deploy' }] });
  await transcriptIdle(s, sid);
  d = await sameAsRest(t, c, s, sid, 'a prompt with a skill');
  t.deepEqual(turns(d)[2].origin, { kind: 'user', payload: { kind: 'user', skillActivations: [{ skillName: 'deploy' }] } });
  t.is(markers(d, 'skill').length, 2);

  // A subagent's turn (its own transcript) and the :btw side agent.
  env.llm.setScript(agentCall('c1', { description: 'look', prompt: 'look' }), say('sub done'), say('main done'));
  await prompt(env, 'delegate');
  await transcriptIdle(s, sid);
  const roster = (await restTranscript(s, sid)).agents;
  const sub = roster.find((a: any) => a.type === 'sub').agentId;
  // The roster's times (B4 agent): main since the session's creation, the subagent from its spawn to its end.
  const [main, child] = [roster.find((a: any) => a.agentId === 'main'), roster.find((a: any) => a.agentId === sub)];
  t.true(Date.parse(main.createdAt) <= Date.parse(child.createdAt) && Date.parse(child.createdAt) <= Date.parse(child.disposedAt));
  t.false('disposedAt' in main);
  t.deepEqual(turns(await restTranscript(s, sid, sub))[0].origin, { kind: 'other', payload: { kind: 'subagent_prompt' } });
  const btw = (await s.post(`/api/v1/sessions/${sid}:btw`, {})).data.agent_id;
  const side = await connectClient(s, sid, btw);
  t.teardown(() => side.ws.close());
  env.llm.setScript(scripts.helloText);
  await prompt(env, { content: text('by the way?'), agent_id: btw, metadata: meta });
  await until(async () => turns(await restTranscript(s, sid, btw))[0]?.state === 'completed' || undefined, 30_000);
  const sd = await sameAsRest(t, side, s, sid, 'the :btw agent');
  t.deepEqual(turns(sd)[0].origin, { kind: 'side', payload: { kind: 'user', clientMetadata: [meta] } });

  // A goal's continuation prompt.
  env.llm.setScript(say('working on it'));
  t.is((await s.post(`/api/v1/sessions/${sid}/profile`, { agent_config: { goal_objective: 'Ship it' } })).code, 0);
  await until(async () => (await s.get(`/api/v1/sessions/${sid}/goal`)).data?.status === 'blocked' || undefined, 30_000);
  await transcriptIdle(s, sid);
  d = await sameAsRest(t, c, s, sid, 'a goal continuation');
  t.deepEqual(turns(d).at(-1).origin, { kind: 'other', payload: { kind: 'goal_continuation' } });
  t.like(d.meta.goal, { objective: 'Ship it', status: 'blocked', budgetUsed: 1, budgetLimit: 1 });

  // A steered prompt is a user frame of the running turn, with the user origin (B3).
  const held = gate();
  env.llm.setScript(scripts.heldAnswer(held.promise), scripts.helloText);
  await prompt(env, 'first');
  await env.ws.waitFor((f) => f.type === 'assistant.delta' && f.payload.text.length > 0 && env.ws.frames.filter((x) => x.type === 'turn.started').length >= 8);
  const steer = await prompt(env, { content: text('also this'), metadata: meta });
  t.is((await s.post(`/api/v1/sessions/${sid}/prompts:steer`, { prompt_ids: [steer.data.prompt_id] })).code, 0);
  held.open();
  await transcriptIdle(s, sid);
  d = await sameAsRest(t, c, s, sid, 'a steered prompt');
  const frame = turns(d).at(-1).steps[1].frames[0];
  t.like(frame, { kind: 'text', role: 'user', text: 'also this', promptIds: [steer.data.prompt_id], origin: { kind: 'user', clientMetadata: [meta] } });
  t.like(d.prompts.find((p: any) => p.promptId === steer.data.prompt_id), { status: 'completed' });
});

test('prompt statuses: aborted while running (cancelled turn, interrupted then ended phase), blocked by a UserPromptSubmit hook', async (t) => {
  const hook = '[[hooks]]\nevent = "UserPromptSubmit"\ncommand = \'grep -q forbidden && { echo "no" >&2; exit 2; }; exit 0\'';
  const env = await startEngine(t, { extraToml: `${YOLO}\n${hook}` });
  const { s, sid } = env;
  const c = await connectClient(s, sid);
  t.teardown(() => c.ws.close());

  env.llm.setScript(scripts.hang);
  const r = await prompt(env, 'wait forever');
  await until(async () => env.llm.requests.length === 1 || undefined, 30_000);
  t.is((await s.post(`/api/v1/sessions/${sid}/prompts/${r.data.prompt_id}:abort`, {})).code, 0);
  await transcriptIdle(s, sid);
  let d = await sameAsRest(t, c, s, sid, 'an aborted prompt');
  t.like(d.prompts.find((p: any) => p.promptId === r.data.prompt_id), { status: 'aborted' });
  t.is(turns(d)[0].state, 'cancelled');
  t.like(d.meta.agent.phase, { kind: 'ended', turnId: 0, reason: 'cancelled' });
  t.like(opsOf(c).filter((o) => o.op === 'meta.merge' && o.meta.agent?.phase?.kind === 'interrupted')[0]?.meta.agent.phase, { turnId: 0, reason: 'aborted', step: 1 });
  t.is(markers(d, 'interruption').length, 1);
  // The session's status after the cancelled turn (E6); the next turn moves it on.
  await env.ws.waitFor((f) => f.type === 'event.session.status_changed' && f.session_id === sid && f.payload.status === 'aborted' && !f.payload.busy);

  const b = await prompt(env, 'say the forbidden thing');
  await transcriptIdle(s, sid);
  d = await sameAsRest(t, c, s, sid, 'a blocked prompt');
  t.like(d.prompts.find((p: any) => p.promptId === b.data.prompt_id), { status: 'blocked' });
  t.like(turns(d)[1], { state: 'failed' });
  t.like(d.meta.agent.phase, { kind: 'ended', turnId: 1, reason: 'blocked' });
  t.is(env.llm.requests.length, 1, 'the blocked prompt made no model request');
  const statuses = env.ws.frames.filter((f) => f.type === 'event.session.status_changed').map((f) => f.payload.status);
  t.deepEqual(statuses.slice(statuses.indexOf('aborted')), ['aborted', 'running', 'idle']);
});

test('plan mode: each plan put up for review is a plan.revision marker and the version of modes.plan', async (t) => {
  const env = await startEngine(t, { extraToml: 'default_permission_mode = "manual"\ndefault_plan_mode = true' });
  const { s, sid } = env;
  const c = await connectClient(s, sid);
  t.teardown(() => c.ws.close());
  env.llm.setScript({ events: [{ tool_call: { id: 'p1', name: 'ExitPlanMode', args: { plan: '1. do it' } } }] }, say('planning more'));
  await prompt(env, 'plan it');
  const review = await until(async () => (await s.get(`/api/v1/sessions/${sid}/approvals?status=pending`)).data.items[0], 30_000);
  let d = await sameAsRest(t, c, s, sid, 'a plan under review');
  t.deepEqual(d.meta.modes, { plan: { version: 1 } });
  t.like(markers(d, 'plan.revision')[0].payload, { version: 1, approvalId: review.approval_id, toolCallId: 'p1' });
  await s.post(`/api/v1/sessions/${sid}/approvals/${review.approval_id}`, { decision: 'approved' });
  await transcriptIdle(s, sid);
  d = await sameAsRest(t, c, s, sid, 'the plan approved');
  t.false('plan' in d.meta.modes, 'approving the plan leaves plan mode');
});

test('a background subagent\'s task record carries its result summary and usage, or its timeout (B4)', async (t) => {
  const { env, sub } = await withSubLlm(t, '[subagent]\ntimeout_ms = 2500');
  const { s, sid } = env;
  const c = await connectClient(s, sid);
  t.teardown(() => c.ws.close());
  sub.setScript({ events: [{ text: 'background answer' }], usage: { input: 7, output: 2 } }, scripts.hang);
  env.llm.setScript(agentCall('c1', { description: 'bg one', prompt: 'p', run_in_background: true }), say('ok'));
  await prompt(env, 'go');
  const done = await until(async () => (await restTranscript(s, sid)).tasks.find((x: any) => x.kind === 'subagent' && x.state !== 'running'), 30_000);
  t.like(done, { state: 'completed', resultSummary: 'background answer', usage: { inputOther: 7, output: 2, inputCacheRead: 0, inputCacheCreation: 0 } });
  await transcriptIdle(s, sid);
  const d = await sameAsRest(t, c, s, sid, 'a completed background subagent');
  t.like(d.items[0].steps[0].frames.find((f: any) => f.toolCallId === 'c1'), { name: 'Agent', taskId: done.taskId });

  env.llm.setScript(agentCall('c2', { description: 'bg two', prompt: 'q', run_in_background: true }), say('ok'));
  await prompt(env, 'again');
  const late = await until(async () => (await restTranscript(s, sid)).tasks.find((x: any) => x.description === 'bg two' && x.state !== 'running'), 30_000);
  t.like(late, { state: 'timed_out', stateReason: 'timed_out' });
  await transcriptIdle(s, sid);
  await sameAsRest(t, c, s, sid, 'a timed out background subagent');
});
