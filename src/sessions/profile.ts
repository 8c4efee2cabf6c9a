import type { SessionRecord } from '../../projections/session-index/session-index.ts';
import type { EventJournal } from '../events/journal.ts';
import type { Clock } from '../lib/clock.ts';
import type { Ids } from '../lib/ids.ts';
import type { ConfigService } from '../config/service.ts';
import { newBudget } from '../goals/budget.ts';
import type { LiveSessions } from './live.ts';
import type { GoalSnapshot } from '../../protocol/events/session.ts';
import { LIMITS } from '../../protocol/schemas/common.ts';
import { assertJsonBounds } from '../../protocol/schemas/json-bounds.ts';
import { findOwnedSession, type OwnedSessionLookup } from './lookup.ts';
import { toSessionObject } from './view.ts';
import type { NewStreamEvent } from '../../protocol/events/registry.ts';

export interface ProfileInput {
  title?: string;
  metadata?: Record<string, unknown>;
  agent_config?: {
    model?: string;
    goal_objective?: string;
    goal_control?: 'pause' | 'resume' | 'cancel';
    [key: string]: unknown;
  };
}

/** The goal after a profile update's goal fields, or undefined when unchanged. */
function nextGoal(ids: Ids, config: ConfigService, cur: SessionRecord, objective?: string, control?: 'pause' | 'resume' | 'cancel'): GoalSnapshot | null | undefined {
  if (objective) {
    return {
      goalId: ids.next('goal'), objective, status: 'active', turnsUsed: 0, tokensUsed: 0, wallClockMs: 0,
      budget: newBudget(config.current().goal),
    };
  }
  const goal = cur.goal;
  if (!control || !goal) return undefined;
  if (control === 'cancel') return { ...goal, status: 'complete', terminalReason: 'cancelled' };
  if (goal.status === 'complete') return undefined;
  const { terminalReason: _reason, ...rest } = goal;
  return { ...rest, status: control === 'pause' ? 'paused' : 'active' };
}

/** POST /sessions/{id}/profile: title, metadata and agent_config, journaled as one batch. */
export async function updateProfile(deps: OwnedSessionLookup & { journal: EventJournal; live: LiveSessions; clock: Clock; ids: Ids; config: ConfigService }, id: string, input: ProfileInput) {
  const cur = findOwnedSession(deps, id);
  const { goal_objective, goal_control, ...config } = input.agent_config ?? {};
  if (config.model === '') delete config.model;
  const payload: Record<string, unknown> = {};
  if (input.title !== undefined) payload.title = input.title;
  if (input.metadata) payload.metadata = input.metadata;
  if (Object.keys(config).length) payload.agent_config = config;
  // Keys merge into what is stored: the merged value is held to the same bounds as each request's.
  const merged = ' once merged with the stored value';
  if (input.metadata) assertJsonBounds({ ...cur.metadata, ...input.metadata, cwd: cur.cwd }, LIMITS.json, 'metadata', merged);
  if (payload.agent_config) assertJsonBounds({ ...cur.agent_config, ...config }, LIMITS.json, 'agent_config', merged);
  const events: NewStreamEvent[] = [{ stream: id, type: 'session.profile_updated', payload }];
  const goal = nextGoal(deps.ids, deps.config, cur, goal_objective, goal_control);
  if (goal !== undefined) events.push({ stream: id, type: 'goal.updated', payload: { goal } });
  if (input.title !== undefined) {
    events.push({
      stream: id,
      type: 'session.meta.updated',
      payload: {
        session_id: id, workspace_id: cur.workspace_id, title: input.title, updated_at: deps.clock.now().toISOString(),
        patch: { title: input.title, isCustomTitle: true, ...(cur.last_prompt !== undefined ? { lastPrompt: cur.last_prompt } : {}) },
      },
    });
  }
  await deps.journal.append(events);
  return toSessionObject(deps.sessions.get(id)!, deps.live);
}
