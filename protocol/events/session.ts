import * as v from 'valibot';
import { SessionObject } from '../schemas/sessions.ts';
import { defineEvent, type PayloadOfDef } from './define.ts';

/** Session lifecycle: the session's own stream, and the broadcasts every client sees. */

const Budget = v.nullable(v.object({ limit: v.number(), remaining: v.number(), reached: v.boolean() }));

/** Core "Goal snapshot" (camelCase keys on the wire). */
export const GoalSnapshot = v.object({
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
export type GoalSnapshot = v.InferOutput<typeof GoalSnapshot>;

/** The persisted state of a session, as carried by `session.created`. */
export const SessionState = v.object({
  id: v.string(),
  workspace_id: v.string(),
  cwd: v.string(),
  title: v.string(),
  title_source: v.pipe(v.picklist(['none', 'custom', 'generated', 'prompt']), v.description(
    '`custom` once a user set it (it wins over generated ones); `prompt`: the first prompt, until a generated title replaces it',
  )),
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
export type SessionState = v.InferOutput<typeof SessionState>;

const created = defineEvent({
  type: 'session.created', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'First event of a session stream',
  payload: v.object({ session: SessionState }),
});

const profileUpdated = defineEvent({
  type: 'session.profile_updated', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'Title, metadata or agent_config changed (merged into the current values)',
  payload: v.object({
    title: v.optional(v.string()),
    metadata: v.optional(v.record(v.string(), v.unknown())),
    agent_config: v.optional(v.record(v.string(), v.unknown())),
  }),
});

const archived = defineEvent({
  type: 'session.archived', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'The session was archived',
  payload: v.object({ archived_at: v.string() }),
});

const restored = defineEvent({
  type: 'session.restored', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'The session was restored from the archive',
  payload: v.object({}),
});

const runtimeBound = defineEvent({
  type: 'session.runtime_bound', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'The session was bound to a runtime',
  payload: v.object({ runtime_id: v.string() }),
});

const goalUpdated = defineEvent({
  type: 'goal.updated', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'The goal snapshot changed (null = cleared); also sent as `snapshot` (clients read that name)',
  payload: v.object({ goal: v.nullable(GoalSnapshot) }),
  aliases: { goal: 'snapshot' },
});

/** `session.title_generated` `source` of a title taken from the session's first prompt (a generated title may replace it). */
export const FIRST_PROMPT_TITLE = 'first_prompt';

const titleGenerated = defineEvent({
  type: 'session.title_generated', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A title was generated (a custom title wins), or taken from the first prompt (source `first_prompt`, model empty); also broadcast as session.meta.updated',
  payload: v.object({ title: v.string(), source: v.string(), model: v.string() }),
});

const broadcastCreated = defineEvent({
  type: 'event.session.created', stream: 'global', durability: 'durable', receivers: 'broadcast', transcript: 'none',
  summary: 'A session was created (create, :fork, child creation); the payload is the session object, also nested as `session`',
  payload: SessionObject,
  nest: 'session',
});

const broadcastArchived = defineEvent({
  type: 'event.session.archived', stream: 'global', durability: 'durable', receivers: 'broadcast', transcript: 'none',
  summary: 'A session was archived (live and cold paths)',
  payload: v.object({ workspace_id: v.string(), sessionId: v.string() }),
});

const metaUpdated = defineEvent({
  type: 'session.meta.updated', stream: 'session', durability: 'durable', receivers: 'broadcast', transcript: 'none',
  summary: 'A session title changed (profile update, title generation)',
  payload: v.object({
    session_id: v.string(), workspace_id: v.string(), title: v.string(), updated_at: v.string(),
    patch: v.pipe(
      v.object({ title: v.string(), isCustomTitle: v.boolean(), lastPrompt: v.optional(v.string()) }),
      v.description('what changed, as clients read it (spec/clients.md E8)'),
    ),
  }),
});

export const SessionStatus = v.picklist(['idle', 'running', 'awaiting_approval', 'awaiting_question', 'aborted']);
export type SessionStatus = v.InferOutput<typeof SessionStatus>;
const PendingInteraction = v.picklist(['none', 'approval', 'question']);
const LastTurnReason = v.picklist(['completed', 'cancelled', 'failed']);

const Work = {
  session_id: v.string(), workspace_id: v.string(), busy: v.boolean(), main_turn_active: v.boolean(),
  pending_interaction: PendingInteraction,
  last_turn_reason: v.optional(v.pipe(LastTurnReason, v.description('how the session\'s last main turn ended; absent before the first'))),
};

const workChanged = defineEvent({
  type: 'event.session.work_changed', stream: 'session', durability: 'durable', receivers: 'broadcast', transcript: 'none',
  summary: 'A session\'s busy / main_turn_active changed',
  payload: v.object(Work),
});

const statusChanged = defineEvent({
  type: 'event.session.status_changed', stream: 'session', durability: 'durable', receivers: 'broadcast', transcript: 'none',
  summary: 'A session\'s busy / main_turn_active / pending_interaction changed',
  payload: v.object({
    ...Work,
    status: v.pipe(SessionStatus, v.description(
      'awaiting_approval / awaiting_question while one is open, else running while busy, else idle (aborted when a cancelled main turn just ended)',
    )),
    previous_status: v.optional(SessionStatus),
  }),
});

const broadcastDeleted = defineEvent({
  type: 'event.session.deleted', stream: 'global', durability: 'durable', receivers: 'broadcast', transcript: 'none',
  summary: 'A session was deleted (POST /sessions/{id}:delete): gone from every list and read, its journal data removed',
  payload: v.object({ session_id: v.string(), sessionId: v.string(), workspace_id: v.string() }),
});

export const SESSION_EVENTS = [
  created, profileUpdated, archived, restored, runtimeBound, goalUpdated, titleGenerated,
  broadcastCreated, broadcastArchived, broadcastDeleted, metaUpdated, workChanged, statusChanged,
] as const;

export type SessionCreatedPayload = PayloadOfDef<typeof created>;
export type ProfileUpdatedPayload = PayloadOfDef<typeof profileUpdated>;
export type StatusChangedPayload = PayloadOfDef<typeof statusChanged>;
export type WorkChangedPayload = PayloadOfDef<typeof workChanged>;
export type MetaUpdatedPayload = PayloadOfDef<typeof metaUpdated>;
