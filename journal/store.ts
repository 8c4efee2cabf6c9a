import type { StoredEvent, StreamHead } from './types.ts';

/**
 * What a journal backend stores (docs/journal.md "Backends"). The Journal keeps the stream heads in memory,
 * assigns seqs, encodes records and runs group commit; a store only makes a flush's writes durable, all or
 * nothing, and answers reads. Two stores: LevelDB (journal/level-store.ts, the default) and PostgreSQL
 * (journal/pg/pg-store.ts).
 */

/** A range of record keys, compared bytewise (LevelDB's order; PostgreSQL's `COLLATE "C"`). */
export interface KeyRange {
  gt?: string;
  gte?: string;
  lt?: string;
  lte?: string;
  /** At most this many (negative or absent: all). */
  limit?: number;
  /** Newest key first. */
  reverse?: boolean;
}

/**
 * Projection records (`p!<name>!<key>`), projection versions (`v!<name>`) and metadata (`m!<key>`): a sorted
 * key/value space. Values are JSON.
 */
export interface RecordStore {
  get(key: string): Promise<unknown>;
  entries(range: KeyRange): Promise<Array<[string, unknown]>>;
  /** Removes every record in the range, outside any append (rebuilds). */
  clear(range: KeyRange): Promise<void>;
}

/** A record write whose value is JSON text already (encoding failures surface at append, never in the store). */
export type EncodedOp = { type: 'put'; key: string; value: string } | { type: 'del'; key: string };

/** An event as written: its record `{type, ts, payload, imported?}` as JSON text. */
export interface EncodedEvent {
  stream: string;
  seq: number;
  type: string;
  text: string;
}

/** The head a write leaves a stream at, and the seq it expects the stored head to be at (undefined: a new stream). */
export interface HeadWrite {
  stream: string;
  head: StreamHead;
  expected: number | undefined;
}

/** One append (or import, or record write): what the journal hands the store, in the order it was accepted. */
export interface WriteUnit {
  events: EncodedEvent[];
  heads: HeadWrite[];
  records: EncodedOp[];
  /** Streams removed whole (events and head), with record ranges removed with them; before this unit's own writes. */
  removed: { stream: string; ranges: KeyRange[] }[];
}

/** A store refused a write because a stream's stored head was not where this writer expected it. */
export class StreamConflictError extends Error {
  override readonly name = 'StreamConflictError';
  constructor(readonly stream: string, detail: string) {
    super(`stream ${stream} was written by another writer (${detail}): refused, nothing written`);
  }
}

export interface JournalStore extends RecordStore {
  readonly backend: 'leveldb' | 'postgres';
  /** Every stored stream head. */
  loadHeads(): Promise<Map<string, StreamHead>>;
  /** The stream's head as stored (what is durable), for readers that wait for the disk. */
  storedHead(stream: string): Promise<StreamHead | undefined>;
  /**
   * Makes the units durable in one atomic write (one LevelDB batch, one PostgreSQL transaction), in order.
   * `sync`: LevelDB fsyncs the batch; PostgreSQL always commits with `synchronous_commit = on`.
   */
  write(units: WriteUnit[], sync: boolean): Promise<void>;
  /** Stored events of `stream` with lo <= seq <= hi, oldest first, at most `limit` (negative: all). */
  readEvents(stream: string, lo: number, hi: number, limit: number): Promise<Array<{ seq: number; event: StoredEvent }>>;
  /** Every stored event of every stream (LevelDB: by stream then seq; PostgreSQL: by global position). */
  scanAll(): AsyncIterable<{ stream: string; seq: number; event: StoredEvent }>;
  close(): Promise<void>;
}
