import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { prompt, startEngine, YOLO } from '../helpers/engine.ts';
import { agentCall, say, turnEnded } from '../helpers/subagents.ts';
import { toolCall } from './transcript-client.ts';

// spec/clients.md E10, F: a client reads camelCase keys (`agentId`, `turnId`, `sessionId`, ...) in session event
// payloads, so a sub-agent's turn is never taken for the main one. Every session-scoped frame of a journey
// (durable and volatile, on a plain `subscribe`) is checked: `sessionId` = the envelope's session, and beside every
// snake-case `*_id` key its camelCase twin with the same value, but for `turn_id`, whose twin `turnId` is the
// turn's ordinal, an integer (F); `goal.updated` carries `snapshot` beside `goal`.

const camel = (k: string) => k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const SNAKE_ID = /^[a-z][a-z0-9]*(_[a-z0-9]+)*_id$/;
/** Frames that are not session events (connection and channel frames, whose payloads are outside E10). */
const NOT_EVENTS = new Set(['ack', 'server_hello', 'resync_required', 'transcript.reset', 'transcript.ops', 'terminal_output', 'terminal_exit', 'error']);

/** What is wrong with one session event frame against E10 ([] when nothing). */
function e10Issues(f: any, sid: string): string[] {
  const out: string[] = [];
  const p = f.payload ?? {};
  if (p.sessionId !== sid) out.push(`${f.type}: sessionId ${JSON.stringify(p.sessionId)}`);
  for (const k of Object.keys(p).filter((x) => SNAKE_ID.test(x))) {
    if (k === 'turn_id') {
      if (!Number.isInteger(p.turnId)) out.push(`${f.type}: turn_id without an integer turnId`);
    } else if (p[camel(k)] !== p[k]) out.push(`${f.type}: ${k} without ${camel(k)}`);
  }
  if (f.type === 'goal.updated' && JSON.stringify(p.snapshot) !== JSON.stringify(p.goal)) out.push('goal.updated: snapshot is not goal');
  return out;
}

test('every session event frame of a journey names its session and agent in camelCase beside the snake-case keys (E10)', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const { s, sid, ws } = env;
  let turns = 0;
  const turn = async (text: string) => {
    t.is((await prompt(env, text)).code, 0);
    await turnEnded(env, ++turns);
  };
  // Streaming with thinking; a tool call; a subagent; a background task; a goal; a title; a compaction; a failed turn.
  env.llm.setScript(scripts.thinkingThenText);
  await turn('think');
  env.llm.setScript(toolCall('w1', 'Write', { file_path: 'a.txt', content: 'a\n' }), say('written'));
  await turn('write');
  env.llm.setScript(agentCall('c1', { description: 'look around', prompt: 'look' }), say('sub done'), say('main done'));
  await turn('delegate');
  // The task ends after its turn: its note starts a follow-up turn (origin task).
  env.llm.setScript(toolCall('b1', 'Bash', { command: 'while [ ! -f bg-go ]; do sleep 0.05; done; echo bg', run_in_background: true }), say('started'), say('noted'));
  await turn('background');
  await writeFile(path.join(s.sessions.get(sid)!.cwd, 'bg-go'), '');
  await ws.waitFor((f) => f.type === 'task.terminated', 30_000);
  await turnEnded(env, ++turns);
  env.llm.setScript({ events: [{ tool_call: { id: 'g1', name: 'GoalComplete', args: { summary: 'done' } } }] }, say('finished'));
  const goalSeq = ((at: number) => () => at)(Math.max(0, ...ws.frames.map((f) => f.seq ?? 0)));
  t.is((await s.post(`/api/v1/sessions/${sid}/profile`, { agent_config: { goal_objective: 'Finish' } })).code, 0);
  await ws.waitFor((f) => f.type === 'goal.updated' && f.payload.goal?.status === 'complete', 30_000);
  // The goal's turn goes on to its closing answer; :compact answers 40910 while a turn runs.
  await ws.waitFor((f) => f.type === 'turn.ended' && f.payload.agent_id === 'main' && f.payload.reason === 'completed' && f.seq > goalSeq(), 30_000);
  t.is((await s.post(`/api/v1/sessions/${sid}/profile`, { title: 'Frames' })).code, 0);
  env.llm.setScript(say('SUMMARY'));
  t.is((await s.post(`/api/v1/sessions/${sid}:compact`, {})).code, 0);
  await ws.waitFor((f) => f.type === 'compaction.completed', 30_000);
  env.llm.setScript(scripts.unauthorized);
  t.is((await prompt(env, 'fails')).code, 0);
  await ws.waitFor((f) => f.type === 'event.session.work_changed' && f.payload.last_turn_reason === 'failed', 30_000);

  const frames = ws.frames.filter((f) => f.session_id === sid && !NOT_EVENTS.has(f.type));
  t.deepEqual(frames.flatMap((f) => e10Issues(f, sid)), []);
  // The journey produced what E10 is about (a check that saw nothing proves nothing).
  const seen = new Set(frames.map((f) => f.type));
  for (const type of [
    'turn.started', 'turn.ended', 'assistant.delta', 'thinking.delta', 'tool.call.started', 'tool.result', 'subagent.spawned', 'subagent.completed',
    'task.started', 'task.terminated', 'goal.updated', 'session.meta.updated', 'event.session.work_changed', 'event.session.status_changed',
    'compaction.completed', 'prompt.accepted',
  ]) t.true(seen.has(type), type);
  const sub = frames.find((f) => f.type === 'turn.started' && f.payload.agent_id !== 'main');
  t.truthy(sub, 'a sub-agent turn');
  t.is(sub.payload.agentId, sub.payload.agent_id);
  t.true(frames.some((f) => f.type === 'goal.updated' && f.payload.snapshot?.status === 'complete'));
});

test('the E10 check fails a frame without the camelCase twins (the check can fail)', (t) => {
  t.deepEqual(e10Issues({ type: 'turn.started', seq: 1, payload: { agent_id: 'a', turn_id: 't', turnId: 't', sessionId: 's' } }, 's'), ['turn.started: agent_id without agentId', 'turn.started: turn_id without an integer turnId']);
  t.deepEqual(e10Issues({ type: 'tool.result', seq: 1, payload: { agent_id: 'main', agentId: 'main' } }, 's'), ['tool.result: sessionId undefined']);
  t.deepEqual(e10Issues({ type: 'assistant.delta', volatile: true, payload: { agent_id: 'a1', agentId: 'main', sessionId: 's' } }, 's'), ['assistant.delta: agent_id without agentId']);
  t.deepEqual(e10Issues({ type: 'goal.updated', seq: 1, payload: { sessionId: 's', goal: { a: 1 } } }, 's'), ['goal.updated: snapshot is not goal']);
});
