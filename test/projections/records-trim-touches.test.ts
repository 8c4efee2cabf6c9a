import test from 'ava';
import { touchesTrimmed } from '../../projections/transcript/records-trim.ts';
import type { RecordsState } from '../../projections/transcript/records-state.ts';
import type { JournalEvent } from '../../journal/types.ts';

// touchesTrimmed (projections/transcript/records-trim.ts): which events need a live fold's trimmed turns back.
// A records state with one agent that has turns out and holds no tool call.
const state = (): RecordsState => ({
  agents: new Map([['main', { trimmed: { turns: 4, before: 4 }, byEngineTurn: new Map(), tools: new Map(), interactions: new Map() }]]),
} as unknown as RecordsState);
const ev = (type: string, payload: Record<string, unknown>) => ({ type, payload, seq: 9, stream: 's', ts: '' } as unknown as JournalEvent);

test('subagent.spawned names its parent call at top level: a trimmed parent frame needs a restore (agentRefs)', (t) => {
  t.true(touchesTrimmed(state(), ev('subagent.spawned', { agent_id: 'sub1', parent_agent_id: 'main', parent_tool_call_id: 'call-old' })));
});

test('task.started with a trimmed parent call needs a restore; task.terminated does not (it never touches the frame)', (t) => {
  const task = { id: 'k1', parent_tool_call_id: 'call-old' };
  t.true(touchesTrimmed(state(), ev('task.started', { task })));
  t.false(touchesTrimmed(state(), ev('task.terminated', { task })));
});

test('subagent.started and turn.started open a turn no fold holds yet: no restore', (t) => {
  t.false(touchesTrimmed(state(), ev('subagent.started', { agent_id: 'main', turn_id: 'new-turn' })));
  t.false(touchesTrimmed(state(), ev('turn.started', { agent_id: 'main', turn_id: 'new-turn' })));
  t.true(touchesTrimmed(state(), ev('turn.ended', { agent_id: 'main', turn_id: 'old-turn' })));
});

test('a late tool.result / interaction answer for a call the fold no longer holds needs a restore; one it holds does not', (t) => {
  t.true(touchesTrimmed(state(), ev('tool.result', { agent_id: 'main', tool_call_id: 'call-old' })));
  const s = state();
  const a = s.agents.get('main') as any;
  a.tools.set('call-new', {});
  a.interactions.set('q1', { toolCallId: 'call-old' });
  t.false(touchesTrimmed(s, ev('tool.result', { agent_id: 'main', tool_call_id: 'call-new' })));
  t.true(touchesTrimmed(s, ev('approval.resolved', { agent_id: 'main', approval_id: 'q1' })));
});
