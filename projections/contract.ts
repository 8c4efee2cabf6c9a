/**
 * The event contract the projections read, from protocol/: the registry's names and payload types, and
 * the wire record shapes the read models hold (docs/architecture.md "Layers").
 */
export type { DurableType, EventType, PayloadOf, VolatileType } from '../protocol/events/registry.ts';
export type { ContentPart, Message } from '../protocol/events/turns.ts';
export type { SessionState } from '../protocol/events/session.ts';
export type { WorkspaceState } from '../protocol/events/workspace.ts';
export type { RememberedCall } from '../protocol/events/approvals.ts';
export type {
  AgentRec, AttachmentRec, InteractionRec, PlanRec, StepRec, TaskRec, TodoRec, TurnRec, UserMessageRec,
} from '../protocol/schemas/transcript.ts';
export { known, type KnownEvent, type KnownEventOf } from '../protocol/events/known.ts';
