import { answerOpenCalls } from '../engine/open-calls.ts';
import type { Message, TurnEndedPayload } from '../../protocol/events/turns.ts';
import type { SubagentSpawnedPayload } from '../../protocol/events/subagents.ts';
import { subagentNotice } from './subagent-task.ts';
import type { CompactionFailedPayload } from '../../protocol/events/compaction.ts';
import type { NewEvent } from '../../protocol/events/registry.ts';
import type { Ids } from '../lib/ids.ts';
import { known } from '../../protocol/events/known.ts';

const ZERO = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0 };

interface Ev { type: string; payload: any }

/**
 * After a restart: the events that settle what the previous run left open outside the
 * main agent — turns of other agents get `turn.ended` failed/interrupted (their unanswered tool
 * calls answered first, src/engine/open-calls.ts), a compaction with
 * no outcome `compaction.failed` interrupted, and spawned subagents with no outcome
 * `subagent.failed` interrupted. Empty when nothing is open. `ids` mints the ids of notes it adds.
 */
export function settleOrphans(events: readonly Ev[], now: string, sessionId: string, ids: Ids): NewEvent[] {
  const openTurns = new Map<string, { agent_id: string; turn_id: string; prompt_id: string }>();
  const openAgents = new Map<string, SubagentSpawnedPayload>();
  const openCompactions = new Map<string, { compaction_id: string; agent_id: string }>();
  for (const e of events) {
    const p = e.payload ?? {};
    const type = known(e).type;
    if (type === 'turn.started' && p.agent_id !== 'main') openTurns.set(p.turn_id, p);
    else if (type === 'turn.ended') openTurns.delete(p.turn_id);
    else if (type === 'subagent.spawned' && p.kind === 'task') openAgents.set(p.agent_id, p);
    else if (type === 'subagent.completed' || type === 'subagent.failed') openAgents.delete(p.agent_id);
    else if (type === 'compaction.started') openCompactions.set(p.compaction_id, p);
    else if (type === 'compaction.completed' || type === 'compaction.failed') openCompactions.delete(p.compaction_id);
  }
  // Each open turn's unanswered tool calls get their results before its end (a `:btw` agent's history is rebuilt from them).
  const out: NewEvent[] = [...openTurns.values()].flatMap((t): NewEvent[] => [
    ...answerOpenCalls(events, { sessionId, agentId: t.agent_id, turnId: t.turn_id, now, ids }),
    {
      type: 'turn.ended',
      payload: {
        agent_id: t.agent_id, turn_id: t.turn_id, prompt_id: t.prompt_id, reason: 'failed',
        error: { kind: 'interrupted', message: 'daemon restarted during the turn' }, usage: { ...ZERO }, steps: 0, ended_at: now,
      } satisfies TurnEndedPayload,
    },
  ]);
  // A compaction cut off by the stop: the context stayed as it was; say so.
  for (const c of openCompactions.values()) {
    out.push({
      type: 'compaction.failed',
      payload: {
        compaction_id: c.compaction_id, agent_id: c.agent_id, attempts: 0,
        error: { kind: 'interrupted', message: 'the daemon stopped during the compaction; the context is unchanged' },
      } satisfies CompactionFailedPayload,
    });
  }
  for (const a of openAgents.values()) {
    out.push({
      type: 'subagent.failed',
      payload: { agent_id: a.agent_id, ...(a.task_id ? { task_id: a.task_id } : {}), reason: 'interrupted', error: { kind: 'interrupted', message: 'the daemon stopped while the subagent ran' } },
    });
    // A background subagent's caller waits for a task notification: it gets one saying what happened.
    if (a.background) out.push({ type: 'message.created', payload: { agent_id: 'main', message: interruptedNote(a, sessionId, now, ids) } });
  }
  return out;
}

function interruptedNote(a: SubagentSpawnedPayload, sessionId: string, now: string, ids: Ids): Message {
  const { text, meta } = subagentNotice(
    { agent_id: a.agent_id, task_id: a.task_id ?? 'unknown', description: a.description, status: 'failed' },
    '[interrupted] the daemon stopped while the subagent ran; its work is incomplete.',
  );
  return { id: ids.next('msg'), session_id: sessionId, role: 'user', content: [{ type: 'text', text }], created_at: now, metadata: { task_notification: meta } };
}
