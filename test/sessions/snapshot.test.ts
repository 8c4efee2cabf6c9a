import test, { type ExecutionContext } from 'ava';
import { addMessages, append, msg, stepCompleted, turnEnded, turnStarted, usage } from '../helpers/engine-events.ts';
import { newSession, serverFor, type TestServer } from '../helpers/server.ts';

const CONFIG = (strategy?: string) => `
default_model = "acme/smart"
${strategy ? `[token_counting]\nstrategy = "${strategy}"\n` : ''}
[providers.acme]
type = "chat_compat"
base_url = "https://llm.invalid/v1"
api_key = "sk-test"

[models."acme/smart"]
provider = "acme"
model = "smart"
max_context_size = 200000

[models."acme/smart".overrides]
max_context_size = 10000

[models."acme/wide"]
provider = "acme"
model = "wide"
max_context_size = 100000
max_input_size = 1000
`;

const server = (t: ExecutionContext, config?: string) => serverFor(t, { config });

const snap = async (s: TestServer, id: string) => (await s.get(`/api/v1/sessions/${id}/snapshot`)).data;

test('an idle session: head cursor, zero usage, no turn, no pending interactions; 40401', async (t) => {
  const s = await server(t);
  const id = await newSession(s);
  const res = await s.get(`/api/v1/sessions/${id}/snapshot`);
  t.is(res.code, 0);
  const head = s.journal.head(id)!;
  t.like(res.data, { as_of_seq: head.seq, epoch: head.epoch, in_flight_turn: null, pending_approvals: [], pending_questions: [] });
  t.deepEqual(res.data.messages, { items: [], has_more: false });
  t.is(res.data.session.id, id);
  t.deepEqual(res.data.session.agent_config, { model: '' }, 'no default model configured');
  t.deepEqual(res.data.session.usage, { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0, context_tokens: 0, turn_count: 0 });
  t.is((await s.get('/api/v1/sessions/session_nope/snapshot')).code, 40401);
});

test('subscribing with the snapshot cursor replays nothing and receives what follows', async (t) => {
  const s = await server(t);
  const id = await newSession(s);
  await addMessages(s, id, 3);
  const data = await snap(s, id);
  t.is(data.as_of_seq, s.journal.head(id)!.seq);
  const c = await s.ws();
  t.teardown(() => c.close());
  const ack = await c.request('subscribe', { session_ids: [id], cursors: { [id]: { seq: data.as_of_seq, epoch: data.epoch } } });
  t.is(ack.code, 0);
  await addMessages(s, id, 1, { start: 4 });
  await c.waitFor((f) => f.session_id === id && f.type === 'message.created');
  const events = c.frames.filter((f) => f.session_id === id && typeof f.seq === 'number');
  t.deepEqual(events.map((f) => f.seq), [data.as_of_seq + 1]);
  t.false(c.frames.some((f) => f.type === 'resync_required'));
});

test('messages: the newest 100 with has_more', async (t) => {
  const s = await server(t);
  const id = await newSession(s);
  await addMessages(s, id, 120);
  const data = await snap(s, id);
  t.is(data.messages.items.length, 100);
  t.true(data.messages.has_more);
  t.is(data.messages.items[0].id, 'm120');
  t.is(data.messages.items[99].id, 'm21');
});

test('in_flight_turn between turn.started and turn.ended; usage sums; live model and context_limit', async (t) => {
  const s = await server(t, CONFIG('measured'));
  const id = await newSession(s);
  await append(s, id, 'turn.started', turnStarted('turn_1', 'prompt_1'));
  t.deepEqual((await snap(s, id)).in_flight_turn, {
    turn_id: 'turn_1', prompt_id: 'prompt_1', current_prompt_id: 'prompt_1', started_at: '2026-01-01T00:00:00.000Z', step: 0,
    turnId: 0, // spec/clients.md F: the turn as v1 frames name it, the main agent's ordinal
  });
  await append(s, id, 'turn.step.started', { agent_id: 'main', turn_id: 'turn_1', step: 1 });
  await append(s, id, 'prompt.steered', { agent_id: 'main', turn_id: 'turn_1', prompt_ids: ['prompt_2'] });
  t.like((await snap(s, id)).in_flight_turn, { step: 1, prompt_id: 'prompt_1', current_prompt_id: 'prompt_2' });
  await append(s, id, 'turn.step.completed', stepCompleted('turn_1', 1, usage(100, 20, 5, 7), 132));
  await append(s, id, 'turn.step.completed', stepCompleted('turn_x', 1, usage(1000, 1, 0, 0), 9999, undefined, 'agent-2'));
  await append(s, id, 'turn.step.completed', stepCompleted('turn_1', 2, usage(200, 30, 0, 0), 400));
  t.like((await snap(s, id)).in_flight_turn, { step: 2 });
  await append(s, id, 'turn.ended', turnEnded('turn_1', 'prompt_1'));
  const data = await snap(s, id);
  t.is(data.in_flight_turn, null);
  t.deepEqual(data.session.usage, {
    input_tokens: 1300, output_tokens: 51, cache_read_tokens: 5, cache_creation_tokens: 7,
    context_tokens: 400, context_limit: 10000, turn_count: 1,
  }, 'tokens of every agent; context and turns of the main agent; overrides apply to the limit');
  t.deepEqual(data.session.agent_config, { model: 'acme/smart' }, 'the global default_model');
  t.is((await s.get(`/api/v1/sessions/${id}`)).data.usage.input_tokens, 0, 'only the snapshot carries usage');

  await s.post(`/api/v1/sessions/${id}/profile`, { agent_config: { model: 'acme/wide' } });
  t.like((await snap(s, id)).session, { agent_config: { model: 'acme/wide' }, usage: { context_limit: 1000 } });
  s.live.set(id, { busy: true, main_turn_active: true, pending_interaction: 'none', model: 'acme/smart' });
  t.like((await snap(s, id)).session, { agent_config: { model: 'acme/smart' }, busy: true });
  s.live.delete(id);
});

const status = async (s: TestServer, id: string) => (await s.get(`/api/v1/sessions/${id}/status`)).data;

/** 400 measured tokens at the step, then 4000 characters (1000 estimated tokens) of later messages. */
async function measuredThenTail(s: TestServer, id: string) {
  await append(s, id, 'message.created', { agent_id: 'main', message: msg(id, 'u1', 'user', 'x'.repeat(2000)) });
  await append(s, id, 'turn.started', turnStarted('turn_1', 'prompt_1'));
  await append(s, id, 'turn.step.completed', stepCompleted('turn_1', 1, usage(380, 20), 400, 'a1'));
  // The step's own message lands after its measure: already counted in it.
  await append(s, id, 'message.created', { agent_id: 'main', message: msg(id, 'a1', 'assistant', 'y'.repeat(80)) });
  await append(s, id, 'turn.ended', turnEnded('turn_1', 'prompt_1'));
  await append(s, id, 'message.created', { agent_id: 'main', message: msg(id, 'u2', 'user', 'z'.repeat(4000)) });
}

for (const [strategy, tokens] of [['measured+estimated', 1400], ['measured', 400], ['estimated', 1520], [undefined, 1400]] as const) {
  test(`/status context per token_counting strategy: ${strategy ?? 'default'}`, async (t) => {
    const s = await server(t, CONFIG(strategy));
    const id = await newSession(s);
    const before = await status(s, id);
    t.like(before, { context_tokens: 0, max_context_tokens: 10000, context_usage: 0, model: 'acme/smart' });
    await measuredThenTail(s, id);
    t.like(await status(s, id), { context_tokens: tokens, max_context_tokens: 10000, context_usage: tokens / 10000 });
    t.is((await snap(s, id)).session.usage.context_tokens, tokens);
  });
}

test('/status: no limit known -> no max_context_tokens nor context_usage; usage is capped at 1', async (t) => {
  const s = await server(t);
  const id = await newSession(s);
  await addMessages(s, id, 2);
  const st = await status(s, id);
  t.is(st.context_tokens, 5, 'estimate of "message 1" + "message 2" (18 chars)');
  t.false('max_context_tokens' in st);
  t.false('context_usage' in st);

  const t2 = await server(t, CONFIG('measured'));
  const id2 = await newSession(t2);
  await append(t2, id2, 'turn.step.completed', stepCompleted('turn_1', 1, usage(1, 1), 50_000));
  t.like(await status(t2, id2), { context_tokens: 50_000, context_usage: 1 });
});

test('a snapshot taken while messages are appended, plus the replay from its cursor, holds every message once', async (t) => {
  const s = await server(t);
  const id = await newSession(s);
  const writes = Array.from({ length: 40 }, (_, i) => addMessages(s, id, 2, { start: i * 2 + 1 }));
  const data = await snap(s, id);
  await Promise.all(writes);
  const c = await s.ws();
  t.teardown(() => c.close());
  await c.request('subscribe', { session_ids: [id], cursors: { [id]: { seq: data.as_of_seq, epoch: data.epoch } } });
  const end = s.journal.head(id)!.seq;
  if (end > data.as_of_seq) await c.waitFor((f) => f.session_id === id && f.seq === end);
  const replayed = c.frames.filter((f) => f.session_id === id && f.type === 'message.created').map((f) => f.payload.message.id);
  const seen = [...data.messages.items.map((m: { id: string }) => m.id), ...replayed];
  t.is(seen.length, 80);
  t.is(new Set(seen).size, 80);
});
