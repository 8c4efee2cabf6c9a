import type pg from 'pg';
import { inTransaction } from './tx.ts';

/**
 * The PostgreSQL journal's schema (docs/journal.md "PostgreSQL"). Migrations run at start, in one transaction
 * under an advisory lock (two daemons starting together apply each once); each is recorded in
 * `journal_schema`. A database whose schema is newer than this build is refused.
 */
export const SCHEMA_VERSION = 3;

/** Advisory lock keys (any constant unique to svc-code). */
export const MIGRATE_LOCK = 0x5c0de_01;
export const APPEND_LOCK = 0x5c0de_02;

const MIGRATIONS: Record<number, string[]> = {
  1: [
    // One row per stream: its epoch and the seq of its last event (the optimistic-concurrency check).
    `CREATE TABLE journal_streams (
       stream text COLLATE "C" PRIMARY KEY,
       epoch text NOT NULL,
       seq integer NOT NULL CHECK (seq >= 0),
       created_at text NOT NULL)`,
    // Every event: its stream and seq (unique: a second writer of the same seq is refused), and a global
    // position for readers of everything. `data` is the record {type, ts, payload, imported?} as JSON text.
    `CREATE TABLE journal_events (
       position bigserial PRIMARY KEY,
       stream text COLLATE "C" NOT NULL,
       seq integer NOT NULL CHECK (seq >= 1),
       type text NOT NULL,
       data json NOT NULL,
       UNIQUE (stream, seq))`,
    // Projection records (p!), projection versions (v!) and metadata (m!), in bytewise key order.
    `CREATE TABLE journal_records (
       key text COLLATE "C" PRIMARY KEY,
       value json NOT NULL)`,
  ],
  2: [
    // Several daemons on one database (docs/scale-out.md): each node's row, renewed while it runs. `url` is where
    // the other nodes reach its HTTP API (commands forwarded to a session's owner). Times are the database's clock,
    // so the nodes' clocks never disagree about an expiry.
    `CREATE TABLE journal_nodes (
       node_id text COLLATE "C" PRIMARY KEY,
       url text NOT NULL,
       started_at timestamptz NOT NULL DEFAULT now(),
       heartbeat_at timestamptz NOT NULL DEFAULT now())`,
    // The node that runs a session's live runtime (turn loop, tools) holds its lease until expires_at; it renews the
    // lease while it lives. Another node may take an expired lease over. `generation` grows with each change of
    // owner: a fencing token for writes made under the lease.
    `CREATE TABLE session_leases (
       session_id text COLLATE "C" PRIMARY KEY,
       node_id text COLLATE "C" NOT NULL,
       expires_at timestamptz NOT NULL,
       taken_at timestamptz NOT NULL DEFAULT now(),
       generation bigint NOT NULL DEFAULT 1)`,
    `CREATE INDEX session_leases_by_node ON session_leases (node_id)`,
  ],
  3: [
    // A stream removed whole (a session deleted), at a position of the events' own sequence, taken in the removing
    // transaction before its events: the other nodes' followers read it in commit order with the events and drop
    // the stream's head there (journal/pg/follower.ts).
    `CREATE TABLE journal_removals (
       position bigint PRIMARY KEY DEFAULT nextval('journal_events_position_seq'),
       stream text COLLATE "C" NOT NULL)`,
  ],
};

/** The database holds a schema this build does not know. */
export class JournalSchemaError extends Error {
  override readonly name = 'JournalSchemaError';
}

/** Applies the migrations the database lacks; returns the version it is at. Idempotent. */
export async function migrate(pool: pg.Pool): Promise<number> {
  return inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATE_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS journal_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const { rows } = await client.query<{ v: number }>('SELECT coalesce(max(version), 0)::int AS v FROM journal_schema');
    const at = rows[0].v;
    if (at > SCHEMA_VERSION) {
      throw new JournalSchemaError(`the journal database has schema version ${at}, newer than this svc-code supports (${SCHEMA_VERSION}): upgrade svc-code`);
    }
    for (let v = at + 1; v <= SCHEMA_VERSION; v++) {
      for (const sql of MIGRATIONS[v]) await client.query(sql);
      await client.query('INSERT INTO journal_schema (version) VALUES ($1)', [v]);
    }
    return SCHEMA_VERSION;
  });
}
