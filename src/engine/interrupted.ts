import type { SessionRecord } from '../../projections/session-index/session-index.ts';
import type { TurnEndedPayload, TurnStartedPayload } from '../../protocol/events/turns.ts';
import type { NewStreamEvent } from '../../protocol/events/registry.ts';
import { known } from '../../protocol/events/known.ts';
import { settleOrphans } from '../agents/recover.ts';
import type { EventJournal } from '../events/journal.ts';
import type { Clock } from '../lib/clock.ts';
import type { Ids } from '../lib/ids.ts';
import { loadMessages } from './history.ts';
import { answerOpenCalls } from './open-calls.ts';
import { MAIN_AGENT } from './turn.ts';

/** Why a turn left open is ended: this daemon's restart, or the takeover of a dead node's session (docs/scale-out.md). */
export type InterruptCause = 'restart' | 'takeover';

const INTERRUPTED: Record<InterruptCause, string> = {
  restart: 'daemon restarted during the turn',
  takeover: 'the node running the turn stopped; another node took the session over',
};

export interface SettleDeps {
  journal: EventJournal;
  clock: Clock;
  ids: Ids;
}

/** Ends the session's open turn as interrupted (calls answered, queued prompts aborted); false when none is open. */
export async function settleInterrupted(deps: SettleDeps, s: SessionRecord, cause: InterruptCause): Promise<boolean> {
  if (!s.active_turn) return false;
  const { events } = await loadMessages(deps.journal, s.id);
  const now = deps.clock.now().toISOString();
  const turn = s.active_turn;
  await deps.journal.append([
    // Calls the stop left unanswered get their results first: the history stays one the providers accept.
    ...answerOpenCalls(events, { sessionId: s.id, agentId: MAIN_AGENT, turnId: turn.turn_id, now, ids: deps.ids }).map((e) => ({ stream: s.id, ...e }) as NewStreamEvent),
    {
      stream: s.id, type: 'turn.ended',
      payload: {
        agent_id: MAIN_AGENT, turn_id: turn.turn_id, prompt_id: turn.prompt_id, reason: 'failed',
        error: { kind: 'interrupted', message: INTERRUPTED[cause] },
        usage: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0 }, steps: 0, ended_at: now,
      } satisfies TurnEndedPayload,
    },
    ...queuedPrompts(events).map((q): NewStreamEvent => ({ stream: s.id, type: 'prompt.aborted', payload: { agent_id: q.agent_id, prompt_id: q.prompt_id, reason: 'interrupted' } })),
    ...settleOrphans(events, now, s.id, deps.ids).map((e) => ({ stream: s.id, ...e })),
  ]);
  return true;
}

/** Prompts accepted but never run, steered or aborted. */
function queuedPrompts(events: Array<{ type: string; payload: any }>): Array<{ prompt_id: string; agent_id: string }> {
  const open = new Map<string, { prompt_id: string; agent_id: string }>();
  for (const e of events) {
    if (known(e).type === 'prompt.accepted') open.set(e.payload.prompt_id, { prompt_id: e.payload.prompt_id, agent_id: e.payload.agent_id ?? MAIN_AGENT });
    else if (known(e).type === 'turn.started') open.delete((e.payload as TurnStartedPayload).prompt_id);
    else if (known(e).type === 'prompt.steered') for (const id of e.payload.prompt_ids as string[]) open.delete(id);
    else if (known(e).type === 'prompt.aborted') open.delete(e.payload.prompt_id);
  }
  return [...open.values()];
}
