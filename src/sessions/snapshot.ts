import type { CommitWaits } from '../../journal/commit-waits.ts';
import type { Journal } from '../../journal/journal.ts';
import type { MessageLog } from '../../projections/messages/message-log.ts';
import { contextTokens } from '../../projections/usage/estimate.ts';
import type { SessionUsage as UsageRecord, UsageProjection } from '../../projections/usage/session-usage.ts';
import type { ConfigService } from '../config/service.ts';
import type { ModelPricing } from '../providers/catalog/pricing.ts';
import type { PermissionService } from '../permissions/service.ts';
import type { QuestionService } from '../questions/service.ts';
import type { TaskService } from '../tasks/service.ts';
import { contextLimit, resolvedModel } from './info.ts';
import type { LiveSessions } from './live.ts';
import { findSession, type SessionLookup } from './lookup.ts';
import { toSessionObject } from './view.ts';
import { eventDef, type EventType } from '../../protocol/events/registry.ts';
import { wirePayload, type WireContext } from '../../protocol/events/wire.ts';

const SNAPSHOT_MESSAGES = 100;

/** What a snapshot reads. */
export interface SnapshotDeps extends SessionLookup {
  journal: Journal;
  /** The messages are read from disk: up to the head, once it is there. */
  commits: CommitWaits;
  messages: MessageLog;
  usage: UsageProjection;
  live: LiveSessions;
  config: ConfigService;
  tasks: Pick<TaskService, 'list'>;
  permissions: Pick<PermissionService, 'pendingItems'>;
  questions: Pick<QuestionService, 'pendingItems'>;
  /** The v1 superset of the pending interactions and the in-flight turn (spec/clients.md F). */
  wire: WireContext;
  /** Prices of well-known models: usage `total_cost_usd` when every model used is priced. */
  pricing: Pick<ModelPricing, 'costUsd'>;
}

/**
 * GET /snapshot. Every in-memory part (session, usage, in-flight turn, head) is
 * read in one synchronous step, so they describe the same stream position
 * `as_of_seq`; the messages are then read from disk bounded by that seq. A
 * client that subscribes with {seq: as_of_seq, epoch} gets exactly what follows.
 */
export async function sessionSnapshot(deps: SnapshotDeps, id: string) {
  const s = findSession(deps, id);
  const head = deps.journal.head(id) ?? { seq: 0, epoch: '' };
  const u = deps.usage.get(id);
  const model = resolvedModel(deps, s) ?? '';
  const limit = contextLimit(deps, model);
  const session = toSessionObject(s, deps.live);
  session.agent_config = { model };
  session.usage = {
    input_tokens: u.input_tokens,
    output_tokens: u.output_tokens,
    cache_read_tokens: u.cache_read_tokens,
    cache_creation_tokens: u.cache_creation_tokens,
    context_tokens: contextTokens(u, deps.config.current().token_counting.strategy),
    ...(limit !== undefined ? { context_limit: limit } : {}),
    ...costOf(deps, u.by_model),
    turn_count: u.turn_count,
  };
  const place = u.in_flight ? deps.wire.place(id, 'main', u.in_flight.turn_id, head.seq) : undefined;
  const in_flight_turn = u.in_flight ? { ...u.in_flight, ...(place ? { turnId: place.turn } : {}) } : null;
  await deps.commits.through(id, head.seq);
  const messages = await deps.messages.page(id, SNAPSHOT_MESSAGES, { upTo: head.seq });
  const subagents = deps.tasks.list(id).map((t) => t.toObject()).filter((t) => t.kind === 'subagent');
  return {
    as_of_seq: head.seq, epoch: head.epoch, session, messages, in_flight_turn, ...(subagents.length ? { subagents } : {}),
    pending_approvals: deps.permissions.pendingItems(id).map((a) => asFrame(deps, id, 'event.approval.requested', a.created_at, a)),
    pending_questions: deps.questions.pendingItems(id).map((q) => asFrame(deps, id, 'event.question.requested', q.created_at, q)),
  };
}

/** `total_cost_usd` of the tokens per model alias, priced by the alias's upstream model id; absent when not known. */
function costOf(deps: SnapshotDeps, byModel: UsageRecord['by_model']): { total_cost_usd?: number } {
  const models = deps.config.current().models;
  const cost = deps.pricing.costUsd(byModel ?? {}, (alias) => {
    const m = models[alias]?.model;
    return typeof m === 'string' ? m : undefined;
  });
  return cost === undefined ? {} : { total_cost_usd: cost };
}

/** A pending interaction as its `event.*.requested` frame carries it (spec/clients.md F: `turnId` the ordinal, camelCase ids, display blocks). */
function asFrame(deps: SnapshotDeps, sessionId: string, type: EventType, at: string, item: object): unknown {
  return wirePayload(eventDef(type), type, { sessionId, time: Date.parse(at), ctx: deps.wire }, item);
}
