import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, text, turnEnded } from '../helpers/engine.ts';
import { gate, until } from '../helpers/wait.ts';

test('a second prompt while busy is queued and runs after the first; GET /prompts shows both', async (t) => {
  const env = await startEngine(t);
  const held = gate();
  env.llm.setScript(scripts.heldAnswer(held.promise), scripts.helloText);
  const first = await prompt(env, 'first');
  const second = await prompt(env, 'second');
  t.is(first.data.status, 'running');
  t.is(second.data.status, 'queued');
  const list = (await env.s.get(`/api/v1/sessions/${env.sid}/prompts`)).data;
  t.is(list.active.prompt_id, first.data.prompt_id);
  t.is(list.active.status, 'running');
  t.deepEqual(list.queued.map((p: any) => [p.prompt_id, p.status]), [[second.data.prompt_id, 'queued']]);
  held.open();
  const e1 = await turnEnded(env, 1);
  const e2 = await turnEnded(env, 2);
  t.is(e1.payload.prompt_id, first.data.prompt_id);
  t.is(e2.payload.prompt_id, second.data.prompt_id);
  t.is(e2.payload.reason, 'completed', JSON.stringify(e2.payload.error));
  t.deepEqual((await env.s.get(`/api/v1/sessions/${env.sid}/prompts`)).data, { active: null, queued: [] });
  // The second request carries the whole history: first prompt, its answer, the second prompt.
  t.deepEqual(env.llm.requests[1]!.body.messages.filter((m: any) => m.role !== 'system').map((m: any) => m.role), ['user', 'assistant', 'user']);
  const busyFlips = env.ws.frames.filter((f) => f.type === 'event.session.work_changed').map((f) => f.payload.busy);
  t.deepEqual(busyFlips, [true, false], 'busy stays on between queued turns');
});

test('steering folds a queued prompt into the active turn before its next step', async (t) => {
  const env = await startEngine(t);
  const held = gate();
  env.llm.setScript(scripts.heldAnswer(held.promise), scripts.helloText);
  const first = await prompt(env, 'first');
  await env.ws.waitFor((f) => f.type === 'assistant.delta');
  const second = await prompt(env, 'also this');
  const r = await env.s.post(`/api/v1/sessions/${env.sid}/prompts:steer`, { prompt_ids: [second.data.prompt_id] });
  t.deepEqual(r.data, { steered: true, prompt_ids: [second.data.prompt_id] });
  held.open();
  const ended = await turnEnded(env);
  t.is(ended.payload.prompt_id, first.data.prompt_id);
  t.is(ended.payload.steps, 2);
  const events = await journal(env);
  t.is(events.filter((e) => e.type === 'turn.ended').length, 1);
  const steered = events.find((e) => e.type === 'prompt.steered')!;
  t.deepEqual(steered.payload.prompt_ids, [second.data.prompt_id]);
  const userMsgs = events.filter((e) => e.type === 'message.created' && e.payload.message.role === 'user');
  t.is(userMsgs[1]!.payload.message.id, second.data.user_message_id);
  t.true(userMsgs[1]!.seq < events.filter((e) => e.type === 'turn.step.started')[1]!.seq);
  t.is(env.llm.requests[1]!.body.messages.at(-1).content, 'also this');
  t.is((await prompt(env, { content: text('x'), prompt_id: second.data.prompt_id })).code, 40903);
});

test('steer errors: 40402 for an id not queued; {prompt_id}:steer answers one id', async (t) => {
  const env = await startEngine(t);
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}/prompts:steer`, { prompt_ids: ['nope'] })).code, 40402);
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}/prompts:steer`, { prompt_ids: [] })).code, 40001);
  const held = gate();
  env.llm.setScript(scripts.heldAnswer(held.promise), scripts.helloText);
  await prompt(env, 'first');
  const running = (await env.s.get(`/api/v1/sessions/${env.sid}/prompts`)).data.active.prompt_id;
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}/prompts/${running}:steer`)).code, 40402, 'a running prompt is not queued');
  const second = await prompt(env, 'next');
  const r = await env.s.post(`/api/v1/sessions/${env.sid}/prompts/${second.data.prompt_id}:steer`);
  t.deepEqual(r.data, { steered: true, prompt_ids: [second.data.prompt_id] });
  held.open();
  t.is((await turnEnded(env)).payload.steps, 2);
});

test('steering a repeated id folds it once and leaves the other queued prompts alone', async (t) => {
  const env = await startEngine(t);
  // The first turn's reply holds after its first words until the steer is checked (a 400 ms stream was too short
  // on a loaded machine: the turn ended first and the steer answered 40402).
  const held = gate();
  env.llm.setScript(scripts.heldAnswer(held.promise), scripts.helloText, scripts.helloText);
  await prompt(env, 'first');
  const second = await prompt(env, 'second');
  const third = await prompt(env, 'third');
  const r = await env.s.post(`/api/v1/sessions/${env.sid}/prompts:steer`, { prompt_ids: [second.data.prompt_id, second.data.prompt_id] });
  t.is(r.code, 0);
  t.deepEqual(r.data, { steered: true, prompt_ids: [second.data.prompt_id] });
  const list = (await env.s.get(`/api/v1/sessions/${env.sid}/prompts`)).data;
  t.deepEqual(list.queued.map((p: any) => p.prompt_id), [third.data.prompt_id]);
  held.open();
});

test('aborting a queued prompt drops it; aborting the running one cancels its turn', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.hang, scripts.helloText);
  const first = await prompt(env, 'first');
  const second = await prompt(env, 'second');
  const third = await prompt(env, 'third');
  t.deepEqual((await env.s.post(`/api/v1/sessions/${env.sid}/prompts/${second.data.prompt_id}:abort`)).data, { aborted: true });
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}/prompts/${second.data.prompt_id}:abort`)).code, 40903);
  await env.ws.waitFor((f) => f.type === 'prompt.aborted' && f.payload.prompt_id === second.data.prompt_id);
  await env.ws.waitFor((f) => f.type === 'turn.step.started');
  t.deepEqual((await env.s.post(`/api/v1/sessions/${env.sid}/prompts/${first.data.prompt_id}:abort`)).data, { aborted: true });
  t.is((await turnEnded(env, 1)).payload.reason, 'cancelled');
  const next = await turnEnded(env, 2);
  t.is(next.payload.prompt_id, third.data.prompt_id);
  t.is(next.payload.reason, 'completed');
  const started = (await journal(env)).filter((e) => e.type === 'turn.started').map((e) => e.payload.prompt_id);
  t.deepEqual(started, [first.data.prompt_id, third.data.prompt_id]);
  t.is(await until(() => env.llm.requests[0]!.outcome), 'aborted');
});
