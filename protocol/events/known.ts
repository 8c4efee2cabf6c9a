import type { JournalEvent } from '../../journal/types.ts';
import type { DurableType, NewEvent, PayloadOf } from './registry.ts';

/** A journal event typed by its registry entry: a `switch` on `type` narrows `payload` to that entry's payload. */
export type KnownEvent = {
  [T in DurableType]: Omit<JournalEvent, 'type' | 'payload'> & { type: T; payload: PayloadOf<T> };
}[DurableType];

/** The stored event of one type. */
export type KnownEventOf<T extends DurableType> = Extract<KnownEvent, { type: T }>;

/**
 * A stored event as its registry entry types it, so that comparing its `type` with a name the registry lacks fails
 * to compile. Emitters append only registry-typed events (src/events/journal.ts); a type no entry knows (an older
 * journal, a test's filler) matches no case and falls to `default`.
 */
export function known(event: JournalEvent): KnownEvent;
/** Any other record of a stored event (a replay's copy, an export's line): its other fields kept. */
export function known<E extends { type: string }>(event: E): Omit<E, 'type' | 'payload'> & NewEvent;
export function known(event: { type: string }): unknown {
  return event;
}
