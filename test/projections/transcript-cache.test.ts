import test from 'ava';
import { foldTranscript, foldTranscriptRecords, transcriptProjection } from '../../projections/transcript/projection.ts';
import { userMessages } from '../../projections/transcript/views.ts';
import { recordsPage, rosterB } from '../../projections/transcript/records-view.ts';
import type { TranscriptState } from '../../projections/transcript/state.ts';
import { scripts } from '../../fixtures/llm/index.ts';
import { prompt, startEngine } from '../helpers/engine.ts';
import { tempDir } from '../helpers/fs.ts';
import { agentCall, say, turnEnded as mainTurnEnded } from '../helpers/subagents.ts';
import { serverFor, type TestServer } from '../helpers/server.ts';
import type { NewStreamEvent } from '../../protocol/events/registry.ts';
import { until } from '../helpers/wait.ts';

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

// What the transcripts projection holds (the turns, user messages and roster families; the client records are the live folds').
const view = (state: TranscriptState, seq: number) => ({
  seq, turns: state.agents.get('main')?.turns ?? [], users: userMessages(state, 'main'), agents: rosterB(state),
});

async function setup(t: { teardown(fn: () => unknown): void }): Promise<{ s: TestServer; sid: string }> {
  const s = await serverFor(t);
  const sid = (await s.post('/api/v1/sessions', { metadata: { cwd: await tempDir() } })).data.id as string;
  return { s, sid };
}

test('a cached transcript brought up to date equals a fresh fold, read after read', async (t) => {
  const { s, sid } = await setup(t);
  const journal = s.journal;
  const cache = transcriptProjection(journal);
  for (let n = 0; n < 4; n++) {
    await journal.append(turnEvents(sid, n));
    const fresh = await foldTranscript(journal, sid);
    const cached = await cache.read(sid, view);
    // The states must be equal; the seq is the head's (a fresh fold's seq is its last event that the reducer reads:
    // the prompt.* companions journaled after a turn's end move the head past it).
    t.deepEqual(cached, structuredClone(view(fresh.state, cached.seq)), `after turn ${n}`);
    t.true(fresh.seq <= cached.seq);
    t.is(cached.seq, journal.headSeq(sid));
  }
});

test('a view a caller holds does not change when a later read folds more events; concurrent reads fold once', async (t) => {
  const { s, sid } = await setup(t);
  const journal = s.journal;
  const cache = transcriptProjection(journal);
  // Turn 0 is open (its tool call has no result yet) when the first view is taken.
  const turn0 = turnEvents(sid, 0);
  await journal.append(turn0.slice(0, 5));
  const first = await cache.read(sid, (state, seq) => ({ seq, turns: state.agents.get('main')!.turns }));
  const before = JSON.stringify(first);
  await journal.append([...turn0.slice(5), ...turnEvents(sid, 1)]);
  const [a, b] = await Promise.all([cache.read(sid, view), cache.read(sid, view)]);
  t.is(JSON.stringify(first), before, 'the earlier answer is a copy');
  t.deepEqual(a, b);
  const fresh = await foldTranscript(journal, sid);
  t.deepEqual(a, structuredClone(view(fresh.state, fresh.seq)), 'no event folded twice');
  t.is(a.turns.length, 2);
});

test('GET /transcript answers from the cache and stays equal to the journal as turns are added', async (t) => {
  const { s, sid } = await setup(t);
  const journal = s.journal;
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

test('a transcript kept up to date as the engine appends equals a fresh fold, turn after turn (approval, subagent, todos, compaction, undo)', async (t) => {
  const env = await startEngine(t, { extraToml: 'default_permission_mode = "manual"' });
  const { journal, transcripts } = env.s;
  const call = (id: string, name: string, args: unknown) => ({ events: [{ tool_call: { id, name, args } }] });
  // Kept from here on: read once while the session is idle, then every event is applied as it is appended.
  await transcripts.read(env.sid, () => 0);
  const same = async (step: string) => {
    await journal.drain();
    const kept = transcripts.peek(env.sid);
    const fresh = await foldTranscript(journal, env.sid);
    t.truthy(kept, step);
    t.is(kept!.seq, journal.headSeq(env.sid), `${step}: every event applied as appended (no catch-up read)`);
    t.deepEqual(kept!.state, fresh.state, step);
    // The live fold (events and deltas, what GET /transcript of a live session reads) answers as the journal's.
    const live = (await env.s.get(`/api/v1/sessions/${env.sid}/transcript?agent_id=main`)).data;
    const { seq: _seq, ...rest } = live;
    const records = await foldTranscriptRecords(journal, env.sid);
    t.deepEqual(rest, structuredClone(recordsPage(records.state, { agent_id: 'main' }, undefined)), `${step}: live fold`);
  };

  env.llm.setScript(call('w1', 'Write', { file_path: 'out.txt', content: 'hi\n' }), scripts.helloText);
  await prompt(env, 'write it');
  const approval = await until(async () => (await env.s.get(`/api/v1/sessions/${env.sid}/approvals?status=pending`)).data.items[0], 30_000);
  await same('approval pending');
  await env.s.post(`/api/v1/sessions/${env.sid}/approvals/${approval.approval_id}`, { decision: 'approved' });
  await mainTurnEnded(env, 1);
  await same('turn with an approved call and a streamed answer');

  env.llm.setScript(agentCall('c1', { description: 'find things', prompt: 'Look for TODOs.' }), say('Found 3 TODOs.'), say('All done.'));
  await prompt(env, { content: [{ type: 'text', text: 'delegate' }], permission_mode: 'yolo' });
  await mainTurnEnded(env, 2);
  await same('subagent');

  env.llm.setScript(call('t1', 'TodoWrite', { todos: [{ id: 'a', content: 'First', status: 'in_progress', activeForm: 'Doing' }] }), scripts.helloText);
  await prompt(env, 'plan');
  await mainTurnEnded(env, 3);
  await same('todos');

  env.llm.setScript(say('SUMMARY'));
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}:compact`, {})).code, 0);
  await env.ws.waitFor((f) => f.type === 'compaction.completed');
  await until(async () => !(await env.s.get(`/api/v1/sessions/${env.sid}/status`)).data.busy);
  env.llm.setScript(say('after the summary'));
  await prompt(env, 'go on');
  await mainTurnEnded(env, 4);
  await same('compaction and a turn after it');

  t.is((await env.s.post(`/api/v1/sessions/${env.sid}:undo`, {})).code, 0);
  await same('undo');
  const page = (await env.s.get(`/api/v1/sessions/${env.sid}/transcript?agent_id=main`)).data;
  t.is(page.items.filter((i: any) => i.kind === 'turn').length, 3, 'the undone turn is left out');
  t.is(page.meta.compactions, 1);
  t.is(page.agents.length, 2);
  t.true(page.items.some((i: any) => i.kind === 'marker' && i.marker === 'undo'), 'an undo marker');
  t.true(page.items.some((i: any) => i.kind === 'marker' && i.marker === 'compaction'), 'compaction markers');
});
