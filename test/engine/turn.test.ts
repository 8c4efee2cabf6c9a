import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, turnEnded, types } from '../helpers/engine.ts';
import { until } from '../helpers/wait.ts';

test('a prompt streams assistant.delta frames with increasing offsets and ends completed', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.helloText);
  const r = await prompt(env, 'hi there');
  t.is(r.code, 0);
  t.is(r.data.status, 'running');
  t.true(r.data.prompt_id.length > 0);
  t.true(r.data.user_message_id.length > 0);
  t.deepEqual(r.data.content, [{ type: 'text', text: 'hi there' }]);
  const ended = await turnEnded(env);
  t.is(ended.payload.reason, 'completed');
  t.is(ended.payload.usage.input_tokens, 12);
  const deltas = env.ws.frames.filter((f) => f.type === 'assistant.delta');
  t.true(deltas.length >= 1);
  t.true(deltas.every((f) => f.volatile === true));
  const offsets = deltas.map((f) => f.payload.offset);
  t.deepEqual(offsets, [...offsets].sort((a, b) => a - b));
  let acc = '';
  for (const d of deltas) {
    t.is(d.payload.offset, acc.length, 'offset is where the delta starts');
    acc += d.payload.text;
  }
  t.is(acc, 'Hello, world');
  const events = await journal(env);
  // work/status events are on the session stream too (spec/clients.md E5), and the first prompt's title (at its own
  // pace); the engine's own events in order, with the prompt.* companions at the end of their batches (clients.md F):
  t.deepEqual(types(events).filter((x) => !x.startsWith('event.session.') && x !== 'session.title_generated' && x !== 'session.meta.updated'), [
    'session.created', 'prompt.accepted', 'prompt.submitted', 'system_prompt.recorded', 'turn.started', 'message.created', 'turn.step.started', 'prompt.started',
    'message.created', 'turn.step.completed', 'turn.ended', 'prompt.completed',
  ]);
  const assistant = events.filter((e) => e.type === 'message.created')[1]!.payload.message;
  t.is(assistant.role, 'assistant');
  t.deepEqual(assistant.content, [{ type: 'text', text: 'Hello, world' }]);
  const user = events.filter((e) => e.type === 'message.created')[0]!.payload.message;
  t.is(user.id, r.data.user_message_id);
  const completed = events.find((e) => e.type === 'turn.step.completed')!.payload;
  t.is(completed.context_tokens, 15);
  t.is(completed.usage.cache_read_tokens, 4);
  t.is(env.llm.requests[0]!.body.messages.at(-1).content, 'hi there');
});

test('a reasoning script streams thinking.delta and keeps the thinking in the message', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.thinkingThenText);
  await prompt(env, 'think');
  t.is((await turnEnded(env)).payload.reason, 'completed');
  const thinking = env.ws.frames.filter((f) => f.type === 'thinking.delta');
  t.is(thinking.map((f) => f.payload.text).join(''), 'Let me think.');
  t.deepEqual(thinking.map((f) => f.payload.offset), [0, 'Let me '.length]);
  const msg = (await journal(env)).filter((e) => e.type === 'message.created')[1]!.payload.message;
  t.is(msg.content[0].type, 'thinking');
  t.is(msg.content[0].thinking, 'Let me think.');
  t.deepEqual(msg.content.at(-1), { type: 'text', text: 'Answer.' });
});

test('a tool call is answered with a tool-not-available result and the loop takes a second step', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.toolCall, scripts.helloText);
  await prompt(env, 'read a file');
  const ended = await turnEnded(env);
  t.is(ended.payload.reason, 'completed');
  t.is(ended.payload.steps, 2);
  const msgs = (await journal(env)).filter((e) => e.type === 'message.created').map((e) => e.payload.message);
  t.deepEqual(msgs.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant']);
  t.like(msgs[1].content[1], { type: 'tool_use', id: 'call_1', name: 'read_file', input: { path: 'src/a.ts', limit: 20 } });
  t.like(msgs[2].content[0], { type: 'tool_result', tool_use_id: 'call_1', is_error: true });
  t.regex(msgs[2].content[0].content, /tool not available/);
  const second = env.llm.requests[1]!.body.messages;
  t.is(second.at(-1).role, 'tool');
  t.is(second.at(-1).tool_call_id, 'call_1');
});

test('session objects show busy while running and last_prompt/last_turn_reason after; work events fire', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.hang);
  await prompt(env, 'first words');
  await env.ws.waitFor((f) => f.type === 'turn.started');
  const running = (await env.s.get(`/api/v1/sessions/${env.sid}`)).data;
  t.true(running.busy);
  t.true(running.main_turn_active);
  t.is(running.last_prompt, 'first words');
  const listed = (await env.s.get('/api/v1/sessions?busy=true')).data.items;
  t.deepEqual(listed.map((s: any) => s.id), [env.sid]);
  const busyWork = await env.ws.waitFor((f) => f.type === 'event.session.work_changed' && f.payload.busy === true);
  t.is(busyWork.payload.session_id, env.sid);
  await env.ws.waitFor((f) => f.type === 'event.session.status_changed' && f.payload.main_turn_active === true);
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}:abort`)).data.aborted, true);
  t.is((await turnEnded(env)).payload.reason, 'cancelled');
  await env.ws.waitFor((f) => f.type === 'event.session.work_changed' && f.payload.busy === false);
  await env.ws.waitFor((f) => f.type === 'event.session.status_changed' && f.payload.busy === false && f.payload.pending_interaction === 'none');
  const after = (await env.s.get(`/api/v1/sessions/${env.sid}`)).data;
  t.false(after.busy);
  t.false(after.main_turn_active);
  t.is(after.last_turn_reason, 'cancelled');
  t.is(await until(() => env.llm.requests[0]!.outcome), 'aborted', 'the fixture saw the request go away');
});
