import test from 'ava';
import pino from 'pino';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, types } from '../helpers/engine.ts';
import { startTestServer } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

test('a restart during a turn ends it failed/interrupted, drops queued prompts, and a new prompt works', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.hang);
  const first = await prompt(env, 'hang');
  const queued = await prompt(env, 'queued behind');
  await env.ws.waitFor((f) => f.type === 'turn.step.started');
  const s2 = await env.s.restart();
  t.teardown(() => s2.stop());
  t.is(await until(() => env.llm.requests[0]!.outcome), 'aborted');
  const env2 = { s: s2, sid: env.sid };
  const events = await journal(env2);
  const ended = events.filter((e) => e.type === 'turn.ended');
  t.is(ended.length, 1);
  t.like(ended[0]!.payload, { reason: 'failed', prompt_id: first.data.prompt_id, error: { kind: 'interrupted', message: 'daemon restarted during the turn' } });
  const aborted = events.filter((e) => e.type === 'prompt.aborted').map((e) => e.payload.prompt_id);
  t.deepEqual(aborted, [queued.data.prompt_id]);
  const session = (await s2.get(`/api/v1/sessions/${env.sid}`)).data;
  t.is(session.last_turn_reason, 'failed');
  t.false(session.busy);
  t.is((await prompt(env2, { content: [{ type: 'text', text: 'x' }], prompt_id: first.data.prompt_id })).code, 40903);
  env.llm.setScript(scripts.helloText);
  const ws = await s2.ws();
  t.teardown(() => ws.close());
  await ws.request('subscribe', { session_ids: [env.sid] });
  t.is((await prompt(env2, 'after restart')).code, 0);
  const done = await ws.waitFor((f) => f.type === 'turn.ended');
  t.is(done.payload.reason, 'completed');
  // The history survived: the new request carries the earlier prompt too.
  const sent = env.llm.requests[1]!.body.messages.map((m: any) => m.content);
  t.true(sent.includes('hang'));
  t.true(sent.includes('after restart'));
  t.is((await journal(env2)).filter((e) => e.type === 'turn.ended').length, 2, 'the interrupted turn and the new one');
});

test('reconnecting mid-turn with a cursor receives every durable event once, in order', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.longAnswer(30, 30));
  await prompt(env, 'long');
  await env.ws.waitFor((f) => f.type === 'assistant.delta');
  const durable = env.ws.frames.filter((f) => f.session_id === env.sid && !f.volatile && typeof f.seq === 'number');
  const last = durable.at(-1);
  await env.ws.close();
  const ws = await env.s.ws();
  t.teardown(() => ws.close());
  const ack = await ws.request('subscribe', { session_ids: [env.sid], cursors: { [env.sid]: { seq: last.seq, epoch: last.epoch } } });
  t.is(ack.code, 0);
  const ended = await ws.waitFor((f) => f.type === 'turn.ended' && f.session_id === env.sid, 30_000);
  t.is(ended.payload.reason, 'completed');
  const got = ws.frames.filter((f) => f.session_id === env.sid && !f.volatile && typeof f.seq === 'number' && f.seq <= ended.seq);
  const all = await journal(env);
  const expected = all.filter((e) => e.seq > last.seq && e.seq <= ended.seq);
  t.deepEqual(got.map((f) => f.seq), expected.map((e) => e.seq));
  t.deepEqual(got.map((f) => f.type), types(expected));
  t.true(types(expected).includes('message.created'));
});

test('a restart with a goal\'s turn waiting on a question settles in order: question dismissed, goal paused, turn ended; one warning sums it up', async (t) => {
  const env = await startEngine(t);
  // The goal starts work at once; its turn waits on the user's answer (a graceful stop leaves the question pending).
  const question = { question: 'Which color?', header: 'Color', options: [{ label: 'Red' }, { label: 'Blue' }] };
  env.llm.setScript({ events: [{ tool_call: { id: 'c1', name: 'AskUserQuestion', args: { questions: [question] } } }] }, scripts.helloText);
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}/profile`, { agent_config: { goal_objective: 'Keep going' } })).code, 0);
  await until(async () => (await env.s.get(`/api/v1/sessions/${env.sid}/questions?status=pending`)).data.items[0], 30_000, 'the question asked');
  const requests = env.llm.requests.length;
  await env.s.server.close();
  const lines: Array<Record<string, unknown>> = [];
  const s2 = await startTestServer({ home: env.s.home, keepHome: true, log: pino({ level: 'warn' }, { write: (l: string) => void lines.push(JSON.parse(l)) }) });
  t.teardown(() => s2.stop());
  const env2 = { s: s2, sid: env.sid };

  const events = await journal(env2);
  const at = (type: string, ok: (p: any) => boolean = () => true) => events.findIndex((e) => e.type === type && ok(e.payload));
  const dismissed = at('event.question.dismissed', (p) => p.reason === 'daemon_restarted');
  const paused = at('goal.updated', (p) => p.goal?.status === 'paused');
  const ended = at('turn.ended', (p) => p.reason === 'failed' && p.error?.kind === 'interrupted');
  t.true(dismissed >= 0 && paused > dismissed && ended > paused, `the order: question ${dismissed}, goal ${paused}, turn ${ended}`);
  t.like((await s2.get(`/api/v1/sessions/${env.sid}/goal`)).data, { objective: 'Keep going', status: 'paused' });
  const summary = lines.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('settled what a restart left open'));
  t.is(summary.length, 1, 'one warning');
  t.like(summary[0], { sessions: 1, approvals: 0, questions: 1, goals: 1, turns: 1 });
  // Nothing continues the paused goal: no prompt after the settlement, no model request.
  await new Promise((r) => setTimeout(r, 1_000));
  t.deepEqual((await journal(env2)).slice(ended).filter((e) => e.type === 'prompt.accepted' || e.type === 'turn.started'), []);
  t.is(env.llm.requests.length, requests);
});
