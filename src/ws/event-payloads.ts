import * as v from 'valibot';
import { GlobalEvents, SessionEvents } from '../events/types.ts';
import { ConfigChangedPayload } from '../http/schemas/config.ts';
import { ModelCatalogChangedPayload } from '../http/schemas/providers.ts';
import { SessionObject } from '../http/schemas/sessions.ts';
import { WorkspaceObject } from '../http/schemas/workspaces.ts';

/** Payload schemas of the events the stream carries today, for /asyncapi.json. */

type AnySchema = v.GenericSchema<any, any>;

export interface EventDoc {
  type: string;
  summary: string;
  payload: AnySchema;
}

const Budget = v.nullable(v.object({ limit: v.number(), remaining: v.number(), reached: v.boolean() }));

/** Core "Goal snapshot" (camelCase keys on the wire). */
const GoalSnapshot = v.object({
  goalId: v.string(),
  objective: v.string(),
  completionCriterion: v.optional(v.string()),
  status: v.picklist(['active', 'paused', 'blocked', 'complete']),
  turnsUsed: v.number(),
  tokensUsed: v.number(),
  wallClockMs: v.number(),
  budget: v.object({ tokens: Budget, turns: Budget, wallClockMs: Budget }),
  terminalReason: v.optional(v.string()),
});

/** The persisted session state carried by `session.created` (src/events/types.ts SessionState). */
const SessionState = v.object({
  id: v.string(),
  workspace_id: v.string(),
  cwd: v.string(),
  title: v.string(),
  title_source: v.picklist(['none', 'custom', 'generated']),
  created_at: v.string(),
  updated_at: v.string(),
  archived: v.boolean(),
  archived_at: v.optional(v.string()),
  last_prompt: v.optional(v.string()),
  last_turn_reason: v.optional(v.picklist(['completed', 'cancelled', 'failed'])),
  metadata: v.record(v.string(), v.unknown()),
  agent_config: v.record(v.string(), v.unknown()),
  parent_id: v.optional(v.string()),
  forked_from: v.optional(v.string()),
  runtime_id: v.string(),
  goal: v.optional(v.nullable(GoalSnapshot)),
});

export const GLOBAL_EVENT_DOCS: EventDoc[] = [
  { type: GlobalEvents.sessionCreated, summary: 'A session was created (create, :fork, child creation)', payload: SessionObject },
  {
    type: GlobalEvents.sessionArchived,
    summary: 'A session was archived (live and cold paths)',
    payload: v.object({ workspace_id: v.string(), sessionId: v.string() }),
  },
  {
    type: GlobalEvents.sessionMetaUpdated,
    summary: 'A session title changed (profile update, title generation)',
    payload: v.object({ session_id: v.string(), workspace_id: v.string(), title: v.string(), updated_at: v.string() }),
  },
  { type: GlobalEvents.workspaceCreated, summary: 'A workspace was registered', payload: WorkspaceObject },
  { type: GlobalEvents.workspaceUpdated, summary: 'A workspace changed (also when a session creation touches it)', payload: WorkspaceObject },
  { type: GlobalEvents.workspaceDeleted, summary: 'A workspace was removed', payload: v.object({ workspace_id: v.string(), root: v.string() }) },
  {
    type: GlobalEvents.configChanged,
    summary: 'Config changed; changes within a short window merge into one event',
    payload: ConfigChangedPayload,
  },
  { type: GlobalEvents.modelCatalogChanged, summary: 'Model aliases were added, removed or rewritten (provider writes, refreshes, imports)', payload: ModelCatalogChangedPayload },
];

export const SESSION_EVENT_DOCS: EventDoc[] = [
  { type: SessionEvents.created, summary: 'First event of a session stream', payload: v.object({ session: SessionState }) },
  {
    type: SessionEvents.profileUpdated,
    summary: 'Title, metadata or agent_config changed (merged into the current values)',
    payload: v.object({
      title: v.optional(v.string()),
      metadata: v.optional(v.record(v.string(), v.unknown())),
      agent_config: v.optional(v.record(v.string(), v.unknown())),
    }),
  },
  { type: SessionEvents.archived, summary: 'The session was archived', payload: v.object({ archived_at: v.string() }) },
  { type: SessionEvents.restored, summary: 'The session was restored from the archive', payload: v.object({}) },
  { type: SessionEvents.runtimeBound, summary: 'The session was bound to a runtime', payload: v.object({ runtime_id: v.string() }) },
  { type: SessionEvents.goalUpdated, summary: 'The goal snapshot changed (null = cleared)', payload: v.object({ goal: v.nullable(GoalSnapshot) }) },
];
