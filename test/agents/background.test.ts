import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt } from '../helpers/engine.ts';
import { agentCall, resultOf, say, tasksUrl, turnEnded, userTexts, withSubLlm } from '../helpers/subagents.ts';
import { until } from '../helpers/wait.ts';

// Background and detached subagents: task notifications, limits, archive, and a daemon restart mid-run.

test('run_in_background returns while the subagent still runs; its answer arrives as a task notification in the next main request', async (t) => {
  const { env, sub } = await withSubLlm(t);
  sub.setScript(scripts.hang);
  env.llm.setScript(agentCall('c1', { description: 'bg job', prompt: 'p', run_in_background: true }), say('started it'));
  await prompt(env, 'go');
  const ended = await turnEnded(env);
  t.is(ended.payload.reason, 'completed');
  const r = await resultOf(env, 'c1');
  t.false(r.is_error);
  t.regex(r.content, /background/);
  const spawned = (await journal(env)).find((e) => e.type === 'subagent.spawned')!.payload;
  t.like(spawned, { background: true, model: 'sub' });
  // The main turn ended while the subagent's request still hangs.
  const running = (await env.s.get(tasksUrl(env, '?status=running'))).data.items;
  t.like(running[0], { id: spawned.task_id, kind: 'subagent', status: 'running', model: 'sub', agent_id: spawned.agent_id });
  t.is(sub.requests.length, 1);
  t.deepEqual((await env.s.post(tasksUrl(env, `/${spawned.task_id}:cancel`), {})).data, { cancelled: true });
  await until(async () => (await env.s.get(tasksUrl(env, `/${spawned.task_id}`))).data.status === 'cancelled');
  const again = await env.s.post(tasksUrl(env, `/${spawned.task_id}:cancel`), {});
  t.is(again.code, 40904);
  t.is(again.details?.current_status, 'cancelled');
  t.like((await journal(env)).find((e) => e.type === 'subagent.failed')!.payload, { agent_id: spawned.agent_id, reason: 'cancelled' });

  // A second background subagent answers.
  sub.setScript(say('background answer'));
  env.llm.setScript(agentCall('c2', { description: 'bg two', prompt: 'q', run_in_background: true }), say('ok'), say('thanks'));
  await prompt(env, 'again');
  await turnEnded(env, 2);
  await until(async () => (await journal(env)).some((e) => e.type === 'subagent.completed'));
  const second = (await journal(env)).filter((e) => e.type === 'subagent.spawned')[1]!.payload;
  const task = await until(async () => (await env.s.get(tasksUrl(env, '?status=completed'))).data.items.find((x: any) => x.id === second.task_id));
  t.like(task, { kind: 'subagent', agent_id: second.agent_id, status: 'completed' });
  await until(async () => (await journal(env)).some((e) => e.type === 'message.created' && e.payload.message.metadata?.task_notification?.task_id === second.task_id));
  await prompt(env, 'next');
  await turnEnded(env, 3);
  const notes = userTexts(env.llm.requests.at(-1)!.body).filter((x) => x.includes('<task-notification>'));
  const note = notes.find((x) => x.includes(second.task_id));
  t.truthy(note);
  t.regex(note!, /background answer/);
  t.regex(note!, /status completed/);
});

test('a daemon restart while a background subagent runs: suspended, then failed interrupted with its turn ended; the session goes on', async (t) => {
  const { env, sub } = await withSubLlm(t);
  sub.setScript(scripts.hang);
  env.llm.setScript(agentCall('c1', { description: 'bg job', prompt: 'p', run_in_background: true }), say('started it'));
  await prompt(env, 'go');
  await turnEnded(env);
  await until(() => sub.requests.length === 1);
  const spawned = (await journal(env)).find((e) => e.type === 'subagent.spawned')!.payload;
  const s2 = await env.s.restart();
  t.teardown(() => s2.stop());
  t.is(await sub.requests[0]!.outcome, 'aborted');
  const env2 = { s: s2, sid: env.sid };
  const before = await journal(env2);
  t.like(before.find((e) => e.type === 'subagent.suspended')?.payload, { agent_id: spawned.agent_id, task_id: spawned.task_id, reason: 'daemon_stopping' });
  t.false(before.some((e) => e.type === 'subagent.failed' || e.type === 'subagent.completed'));
  const ws = await s2.ws();
  t.teardown(() => ws.close());
  await ws.request('subscribe', { session_ids: [env.sid] });
  env.llm.setScript(say('still here'));
  t.is((await prompt(env2, 'after restart')).code, 0);
  const done = await ws.waitFor((f) => f.type === 'turn.ended' && f.payload.agent_id === 'main', 30_000);
  t.is(done.payload.reason, 'completed');
  const after = await journal(env2);
  const suspendedAt = after.findIndex((e) => e.type === 'subagent.suspended');
  const failedAt = after.findIndex((e) => e.type === 'subagent.failed');
  t.true(suspendedAt >= 0 && failedAt > suspendedAt);
  t.like(after[failedAt]!.payload, { agent_id: spawned.agent_id, task_id: spawned.task_id, reason: 'interrupted' });
  const subTurn = after.filter((e) => e.payload?.agent_id === spawned.agent_id && e.type.startsWith('turn.'));
  t.like(subTurn.find((e) => e.type === 'turn.ended')?.payload, { reason: 'failed', error: { kind: 'interrupted' } });
  t.is(after.filter((e) => e.type === 'subagent.failed').length, 1);
  t.deepEqual((await s2.get(`/api/v1/sessions/${env.sid}/tasks?status=running`)).data.items, []);
  t.false((await s2.get(`/api/v1/sessions/${env.sid}`)).data.busy);
  // The caller is told, so it does not wait for a notification that would never come.
  const note = userTexts(env.llm.requests.at(-1)!.body).find((x) => x.includes('<task-notification>'));
  t.truthy(note);
  t.true(note!.includes(spawned.task_id));
  t.regex(note!, /\[interrupted\]/);
});

test(':detach moves a running foreground subagent to the background: the tool call returns, the answer comes as a notification', async (t) => {
  // The subagent waits on an approval for its Write, so it is surely running when detached.
  const { env, sub } = await withSubLlm(t, '', 'default_permission_mode = "manual"');
  sub.setScript({ events: [{ tool_call: { id: 'w1', name: 'Write', args: { file_path: 'out.txt', content: 'x' } } }] }, say('late answer'));
  env.llm.setScript(agentCall('c1', { description: 'fg job', prompt: 'p' }), say('moved on'), say('read it'));
  await prompt(env, 'go');
  const approval = await until(async () => (await env.s.get(`/api/v1/sessions/${env.sid}/approvals?status=pending`)).data.items[0], 30_000);
  const spawned = (await journal(env)).find((e) => e.type === 'subagent.spawned')!.payload;
  t.false(spawned.background);
  const d = await env.s.post(tasksUrl(env, `/${spawned.task_id}:detach`), {});
  t.deepEqual(d.data, { detached: true, status: 'running' });
  await turnEnded(env);
  const r = await resultOf(env, 'c1');
  t.false(r.is_error);
  t.regex(r.content, /background/);
  t.is((await env.s.get(tasksUrl(env, `/${spawned.task_id}`))).data.status, 'running');
  await env.s.post(`/api/v1/sessions/${env.sid}/approvals/${approval.approval_id}`, { decision: 'approved' });
  await until(async () => (await journal(env)).some((e) => e.type === 'message.created' && e.payload.message.metadata?.task_notification?.task_id === spawned.task_id), 30_000);
  const task = (await env.s.get(tasksUrl(env, `/${spawned.task_id}?with_output=true`))).data;
  t.like(task, { status: 'completed', kind: 'subagent', output_preview: 'late answer' });
  await prompt(env, 'next');
  await turnEnded(env, 2);
  t.true(userTexts(env.llm.requests.at(-1)!.body).some((x) => x.includes('<task-notification>') && x.includes('late answer')));
});

test('a background subagent that times out reports failed in its task and notification', async (t) => {
  const { env, sub } = await withSubLlm(t, '[subagent]\ntimeout_ms = 200');
  sub.setScript(scripts.hang);
  env.llm.setScript(agentCall('c1', { description: 'bg', prompt: 'p', run_in_background: true }), say('ok'));
  await prompt(env, 'go');
  await turnEnded(env);
  const note = await until(async () => (await journal(env)).find((e) => e.type === 'message.created' && e.payload.message.metadata?.task_notification), 30_000);
  t.is(note!.payload.message.metadata.task_notification.status, 'failed');
  t.regex(note!.payload.message.content[0].text, /timed_out/);
  t.is((await journal(env)).find((e) => e.type === 'subagent.failed')!.payload.reason, 'timed_out');
});

test('archiving the session cancels its background subagent', async (t) => {
  const { env, sub } = await withSubLlm(t);
  sub.setScript(scripts.hang);
  env.llm.setScript(agentCall('c1', { description: 'bg', prompt: 'p', run_in_background: true }), say('ok'));
  await prompt(env, 'go');
  await turnEnded(env);
  await until(() => sub.requests.length === 1);
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}:archive`, {})).code, 0);
  t.is(await sub.requests[0]!.outcome, 'aborted');
  const failed = await until(async () => (await journal(env)).find((e) => e.type === 'subagent.failed'));
  t.is(failed!.payload.reason, 'cancelled');
});

test('a daemon restart while a foreground subagent runs ends the main turn and the subagent interrupted at the next start', async (t) => {
  const { env, sub } = await withSubLlm(t);
  sub.setScript(scripts.hang);
  env.llm.setScript(agentCall('c1', { description: 'fg', prompt: 'p' }));
  await prompt(env, 'go');
  await until(() => sub.requests.length === 1);
  const spawned = (await journal(env)).find((e) => e.type === 'subagent.spawned')!.payload;
  const s2 = await env.s.restart();
  t.teardown(() => s2.stop());
  const env2 = { s: s2, sid: env.sid };
  const events = await journal(env2);
  t.true(events.some((e) => e.type === 'subagent.suspended' && e.payload.agent_id === spawned.agent_id));
  t.like(events.find((e) => e.type === 'subagent.failed')?.payload, { agent_id: spawned.agent_id, reason: 'interrupted' });
  const ends = events.filter((e) => e.type === 'turn.ended').map((e) => e.payload);
  t.like(ends.find((p) => p.agent_id === 'main'), { reason: 'failed', error: { kind: 'interrupted' } });
  t.like(ends.find((p) => p.agent_id === spawned.agent_id), { reason: 'failed', error: { kind: 'interrupted' } });
  t.is(events.filter((e) => e.type === 'subagent.failed').length, 1);
  const ws = await s2.ws();
  t.teardown(() => ws.close());
  await ws.request('subscribe', { session_ids: [env.sid] });
  env.llm.setScript(say('fine'));
  t.is((await prompt(env2, 'again')).code, 0);
  t.is((await ws.waitFor((f) => f.type === 'turn.ended' && f.payload.agent_id === 'main', 30_000)).payload.reason, 'completed');
  t.is((await journal(env2)).filter((e) => e.type === 'subagent.failed').length, 1);
});

test('background.max_running_tasks also limits background subagents', async (t) => {
  const { env, sub } = await withSubLlm(t, '[background]\nmax_running_tasks = 1');
  sub.setScript(scripts.hang);
  env.llm.setScript({
    events: [
      { tool_call: { id: 'c1', name: 'Agent', args: { description: 'one', prompt: 'p', run_in_background: true } } },
      { tool_call: { id: 'c2', name: 'Agent', args: { description: 'two', prompt: 'q', run_in_background: true } } },
    ],
  }, say('ok'));
  await prompt(env, 'go');
  await turnEnded(env);
  t.false((await resultOf(env, 'c1')).is_error);
  const second = await resultOf(env, 'c2');
  t.true(second.is_error);
  t.regex(second.content, /max_running_tasks \(1\) reached/);
  t.is((await journal(env)).filter((e) => e.type === 'subagent.spawned').length, 1);
});
