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
  /**
   * Keeps no records: each stream is folded from the journal when it is first read, and `apply` keeps the
   * folds it holds up to date. A rebuild (or a version change) only drops what it holds; nothing is replayed.
   */
  readonly lazy?: boolean;
  /** Applies one event; returns the records that changed. */
  apply(event: JournalEvent): RecordWrite[];
  /** Loads one persisted record at start. */
  load(key: string, value: unknown): void;
  /** Empties the in-memory state (before a rebuild). */
  reset(): void;
}

/**
 * The read model of one stream (a session's transcript), for a lazy projection: `apply` changes the state
 * it is given. Folding a stream from seq 1 equals applying its events one by one as they were appended.
 */
export interface StreamReducer<S> {
  readonly name: string;
  /** Bump when the state changes shape or meaning: states folded by another version are dropped. */
  readonly version: number;
  init(): S;
  apply(state: S, event: JournalEvent): void;
}
