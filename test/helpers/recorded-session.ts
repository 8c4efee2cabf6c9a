import type { NewStreamEvent } from '../../protocol/events/registry.ts';
import type { Message } from '../../protocol/events/turns.ts';

/**
 * A session's events as the engine journals them, every transcript family touched: two main turns (a prompt,
 * a tool call held for approval, the answer; a todo list), a subagent with its own turn, a finished background
 * task, a skill activation, a compaction and an undo of the second turn. Every turn and interaction is closed,
 * so a restart recovers nothing (what a restart appends is the engine's, not a projection's).
 */
export function recordedSession(sid: string): NewStreamEvent[] {
  const at = '2026-01-01T00:00:00.000Z';
  const usage = { input_tokens: 10, output_tokens: 5, cache_read_tokens: 1, cache_creation_tokens: 0 };
  const msg = (id: string, role: Message['role'], text: string, extra: Partial<Message> = {}): Message => ({
    id, session_id: sid, role, content: [{ type: 'text', text }], created_at: at, ...extra,
  });
  const e = <T extends NewStreamEvent['type']>(type: T, payload: Extract<NewStreamEvent, { type: T }>['payload']) => ({ stream: sid, type, payload }) as NewStreamEvent;
  const turn = (n: number, agent = 'main') => ({ agent_id: agent, turn_id: `turn_${agent}_${n}` });
  const mainTurn = (n: number): NewStreamEvent[] => [
    e('prompt.accepted', { agent_id: 'main', prompt_id: `p${n}`, user_message_id: `u${n}`, content: [{ type: 'text', text: `question ${n}` }], created_at: at, overrides: {} }),
    e('turn.started', { ...turn(n), prompt_id: `p${n}`, prompt_ids: [], model: 'acme/smart', started_at: at }),
    e('message.created', { ...turn(n), message: msg(`u${n}`, 'user', `question ${n}`, { prompt_id: `p${n}` }) }),
    e('turn.step.started', { ...turn(n), step: 1 }),
    e('message.created', { ...turn(n), message: { ...msg(`a${n}`, 'assistant', 'calling'), content: [{ type: 'tool_use', id: `c${n}`, name: 'Bash', input: { command: 'ls' } }] } }),
    e('tool.call.started', { ...turn(n), tool_call_id: `c${n}`, tool_name: 'Bash', input: { command: 'ls' } }),
    e('event.approval.requested', {
      approval_id: `ap${n}`, session_id: sid, agent_id: 'main', turn_id: turn(n).turn_id, tool_call_id: `c${n}`, tool_name: 'Bash', action: 'run',
      tool_input_display: 'ls', created_at: at, expires_at: at,
    }),
    e('event.approval.resolved', { approval_id: `ap${n}`, agent_id: 'main', tool_call_id: `c${n}`, decision: 'approved', resolved_at: at }),
    e('turn.step.completed', { ...turn(n), step: 1, finish_reason: 'tool_calls', usage, context_tokens: 20, message_id: `a${n}` }),
    e('tool.result', { ...turn(n), tool_call_id: `c${n}`, tool_name: 'Bash', is_error: false, content: 'a b c', duration_ms: 3 }),
    e('message.created', { ...turn(n), message: { ...msg(`r${n}`, 'tool', ''), content: [{ type: 'tool_result', tool_use_id: `c${n}`, content: 'a b c', name: 'Bash' }] } }),
    e('todo.updated', { agent_id: 'main', turn_id: turn(n).turn_id, tool_call_id: `t${n}`, todos: [{ id: 'a', content: `step ${n}`, status: 'in_progress' }] }),
    e('turn.step.started', { ...turn(n), step: 2 }),
    e('message.created', { ...turn(n), message: msg(`f${n}`, 'assistant', `answer ${n}`) }),
    e('turn.step.completed', { ...turn(n), step: 2, finish_reason: 'stop', usage, context_tokens: 30, message_id: `f${n}` }),
    e('turn.ended', { ...turn(n), prompt_id: `p${n}`, reason: 'completed', usage, steps: 2, ended_at: at }),
  ];
  const sub = 'agent_sub1';
  const task = { run_in_background: true, id: 'task_1', session_id: sid, kind: 'bash' as const, description: 'build', status: 'completed' as const, created_at: at, command: 'make' };
  return [
    ...mainTurn(1),
    e('subagent.spawned', {
      agent_id: sub, kind: 'task', parent_agent_id: 'main', parent_tool_call_id: 'c1', description: 'look around', subagent_type: 'general',
      model: 'acme/smart', thinking_effort: 'off', background: false,
    }),
    e('turn.started', { ...turn(1, sub), prompt_id: 'sp1', prompt_ids: [], model: 'acme/smart', started_at: at }),
    e('message.created', { ...turn(1, sub), message: msg('su1', 'user', 'Look around.') }),
    e('turn.step.started', { ...turn(1, sub), step: 1 }),
    e('message.created', { ...turn(1, sub), message: msg('sa1', 'assistant', 'Found it.') }),
    e('turn.step.completed', { ...turn(1, sub), step: 1, finish_reason: 'stop', usage, context_tokens: 5 }),
    e('turn.ended', { ...turn(1, sub), prompt_id: 'sp1', reason: 'completed', usage, steps: 1, ended_at: at }),
    e('subagent.completed', { agent_id: sub, turn_id: turn(1, sub).turn_id, result: 'Found it.', usage, steps: 1, duration_ms: 9 }),
    e('task.started', { task: { ...task, status: 'running' } }),
    e('task.terminated', { task }),
    e('skill.activated', { agent_id: 'main', skill_name: 'deploy', source: 'project', prompt_id: 'p2' }),
    ...mainTurn(2),
    e('compaction.started', { compaction_id: 'k1', agent_id: 'main', trigger: 'manual' }),
    e('compaction.completed', {
      compaction_id: 'k1', agent_id: 'main', summary_message_id: 'sum1', replaced_messages: 2, tokens_before: 40, tokens_after: 10, usage,
    }),
    e('message.created', { agent_id: 'main', message: msg('sum1', 'user', 'SUMMARY', { metadata: { compaction: true } }) }),
    ...mainTurn(3),
    e('session.undone', { agent_id: 'main', count: 1, message_ids: ['u3', 'a3', 'r3', 'f3'], last_prompt: 'question 2', context_chars: 42 }),
  ];
}
