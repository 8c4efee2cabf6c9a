import type { JournalEvent } from '../journal/types.ts';

/** A record change inside one projection's key space. */
export type RecordWrite = { key: string; value: unknown } | { key: string; delete: true };

/**
 * A projection is a reducer over journal events with in-memory state that is
 * persisted record by record in the same batch as the events it came from.
 * Rebuilding from an empty state over the whole journal equals the incremental state.
 */
export interface Projection {
  readonly name: string;
  /** Bump to force a rebuild on the next start. */
  readonly version: number;
  /** Records are read from LevelDB on demand: start() does not load them into memory. */
  readonly onDemand?: boolean;
  /** Applies one event; returns the records that changed. */
  apply(event: JournalEvent): RecordWrite[];
  /** Loads one persisted record at start. */
  load(key: string, value: unknown): void;
  /** Empties the in-memory state (before a rebuild). */
  reset(): void;
}
