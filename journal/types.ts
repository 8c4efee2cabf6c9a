/** A durable event as stored and as fanned out. */
export interface JournalEvent<P = unknown> {
  stream: string;
  seq: number;
  epoch: string;
  type: string;
  /** ISO 8601 time the event was appended. */
  ts: string;
  payload: P;
  /** Set on events copied in from another database slot; never broadcast. */
  imported?: boolean;
}

/** What a command asks the journal to append. */
export interface PendingEvent<P = unknown> {
  stream: string;
  type: string;
  payload: P;
}

export interface StreamHead {
  epoch: string;
  seq: number;
  created_at: string;
}

/** A projection write that rides in the same batch as the events it was derived from. */
export type ProjectionWrite =
  | { type: 'put'; key: string; value: unknown }
  | { type: 'del'; key: string };

export interface StoredEvent {
  type: string;
  ts: string;
  payload: unknown;
  imported?: boolean;
}
