import test from 'ava';
import { TranscriptCache } from '../src/transcript/cache.ts';
import { foldTranscript } from '../src/transcript/read.ts';
import { agentOf, roster, turnPage, userMessages } from '../src/transcript/views.ts';
import type { TranscriptState } from '../src/transcript/state.ts';
import { tempDir } from './helpers/fs.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import type { NewStreamEvent } from '../src/events/registry.ts';

/** One turn of the main agent: prompt, user message, a tool call and its result, the answer. */
function turnEvents(sid: string, n: number) {
  const at = new Date().toISOString();
  const turn = `turn_${n}`;
  const usage = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0 };
  return [
    { stream: sid, type: 'prompt.accepted', payload: { agent_id: 'main', prompt_id: `p${n}`, user_message_id: `um${n}`, content: [{ type: 'text', text: `q${n}` }], created_at: at, overrides: {} } },
    { stream: sid, type: 'turn.started', payload: { agent_id: 'main', turn_id: turn, prompt_id: `p${n}`, prompt_ids: [`p${n}`], model: 'acme/smart', started_at: at } },
    { stream: sid, type: 'message.created', payload: { agent_id: 'main', message: { id: `um${n}`, role: 'user', content: [{ type: 'text', text: `q${n}` }], session_id: sid, created_at: at } } },
    { stream: sid, type: 'turn.step.started', payload: { agent_id: 'main', turn_id: turn, step: 1 } },
    { stream: sid, type: 'tool.call.started', payload: { agent_id: 'main', turn_id: turn, tool_call_id: `c${n}`, tool_name: 'Read', input: { file_path: 'a' } } },
    { stream: sid, type: 'tool.result', payload: { agent_id: 'main', turn_id: turn, tool_call_id: `c${n}`, tool_name: 'Read', is_error: false, content: `file ${n}`, duration_ms: 1 } },
    { stream: sid, type: 'message.created', payload: { agent_id: 'main', message: { id: `am${n}`, role: 'assistant', content: [{ type: 'text', text: `a${n}` }], session_id: sid, created_at: at } } },
    { stream: sid, type: 'turn.step.completed', payload: { agent_id: 'main', turn_id: turn, step: 1, finish_reason: 'stop', usage, context_tokens: 0 } },
    { stream: sid, type: 'turn.ended', payload: { agent_id: 'main', turn_id: turn, prompt_id: `p${n}`, reason: 'completed', usage, steps: 1, ended_at: at } },
  ] satisfies NewStreamEvent[];
}

const view = (state: TranscriptState, seq: number) => ({
  seq, page: turnPage(agentOf(state, 'main'), {}), users: userMessages(state, 'main'), agents: roster(state),
});

async function setup(t: { teardown(fn: () => unknown): void }): Promise<{ s: TestServer; sid: string }> {
  const s = await startTestServer();
  t.teardown(() => s.stop());
  const sid = (await s.post('/api/v1/sessions', { metadata: { cwd: await tempDir() } })).data.id as string;
  return { s, sid };
}

test('a cached transcript brought up to date equals a fresh fold, read after read', async (t) => {
  const { s, sid } = await setup(t);
  const journal = s.server.services.journal;
  const cache = new TranscriptCache(journal);
  for (let n = 0; n < 4; n++) {
    await journal.append(turnEvents(sid, n));
    const fresh = await foldTranscript(journal, sid);
    const cached = await cache.read(sid, view);
    t.deepEqual(cached, structuredClone(view(fresh.state, fresh.seq)), `after turn ${n}`);
    t.is(cached.seq, journal.headSeq(sid));
  }
});

test('a view a caller holds does not change when a later read folds more events; concurrent reads fold once', async (t) => {
  const { s, sid } = await setup(t);
  const journal = s.server.services.journal;
  const cache = new TranscriptCache(journal);
  // Turn 0 is open (its tool call has no result yet) when the first view is taken.
  const turn0 = turnEvents(sid, 0);
  await journal.append(turn0.slice(0, 5));
  const first = await cache.read(sid, (state, seq) => ({ seq, turns: turnPage(agentOf(state, 'main'), {})!.items }));
  const before = JSON.stringify(first);
  await journal.append([...turn0.slice(5), ...turnEvents(sid, 1)]);
  const [a, b] = await Promise.all([cache.read(sid, view), cache.read(sid, view)]);
  t.is(JSON.stringify(first), before, 'the earlier answer is a copy');
  t.deepEqual(a, b);
  const fresh = await foldTranscript(journal, sid);
  t.deepEqual(a, structuredClone(view(fresh.state, fresh.seq)), 'no event folded twice');
  t.is(a.page!.items.length, 2);
});

test('GET /transcript answers from the cache and stays equal to the journal as turns are added', async (t) => {
  const { s, sid } = await setup(t);
  const journal = s.server.services.journal;
  for (let n = 0; n < 3; n++) {
    await journal.append(turnEvents(sid, n));
    const r = await s.get(`/api/v1/sessions/${sid}/transcript?agent_id=main`);
    t.is(r.code, 0);
    t.deepEqual(r.data.items.map((x: any) => x.turn_id), Array.from({ length: n + 1 }, (_, i) => `turn_${i}`));
    const users = await s.get(`/api/v1/sessions/${sid}/transcript/user-messages?agent_id=main`);
    t.is(users.data.agents[0].messages.length, n + 1);
  }
  // A view that throws (an unknown cursor) answers 40001 and leaves the cache usable.
  t.is((await s.get(`/api/v1/sessions/${sid}/transcript?agent_id=main&before_turn=nope`)).code, 40001);
  t.is((await s.get(`/api/v1/sessions/${sid}/transcript?agent_id=main`)).data.items.length, 3);
});
