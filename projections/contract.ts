import type { JournalEvent } from '../journal/types.ts';
import type { DurableType, PayloadOf } from '../protocol/events/registry.ts';

/**
 * The event contract the projections read, from protocol/: the registry's names and payload types, and
 * the wire record shapes the read models hold (docs/architecture.md "Layers").
 */
export type { DurableType, EventType, PayloadOf } from '../protocol/events/registry.ts';
export type { ContentPart, Message } from '../protocol/events/turns.ts';
export type { SessionState } from '../protocol/events/session.ts';
export type { WorkspaceState } from '../protocol/events/workspace.ts';
export type { RememberedCall } from '../protocol/events/approvals.ts';
export type {
  AgentRec, AttachmentRec, InteractionRec, PlanRec, StepRec, TaskRec, TodoRec, TurnRec, UserMessageRec,
} from '../protocol/schemas/transcript.ts';

/** A journal event typed by its registry entry: a `switch` on `type` narrows `payload` to that entry's payload. */
export type KnownEvent = {
  [T in DurableType]: Omit<JournalEvent, 'type' | 'payload'> & { type: T; payload: PayloadOf<T> };
}[DurableType];

/**
 * A stored event as its registry entry types it. Emitters append only registry-typed events (src/events/journal.ts);
 * a type no entry knows (an older journal, a test's filler) matches no case and falls to `default`.
 */
export function known(event: JournalEvent): KnownEvent {
  return event as KnownEvent;
}
