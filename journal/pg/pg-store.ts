import pg from 'pg';
import { StreamConflictError, type EncodedOp, type HeadWrite, type JournalStore, type KeyRange, type WriteUnit } from '../store.ts';
import type { StoredEvent, StreamHead } from '../types.ts';
import { APPEND_LOCK } from './schema.ts';
import { COMMIT_CHANNEL } from './channel.ts';
import { inTransaction } from './tx.ts';

/** Rows per page of a full scan (rebuilds). */
const SCAN_PAGE = 1000;

/** An event as the follower reads it (journal/pg/follower.ts): its global position and its stream's epoch. */
export interface FollowedRow {
  position: string;
  /** A removal of the whole stream (journal_removals): no seq, epoch or data. */
  removed: boolean;
  stream: string;
  seq: number;
  epoch: string;
  created_at: string;
  data: StoredEvent;
}

export interface PgStoreOptions {
  /** How long a read or a write keeps retrying while the database is unreachable before it fails (ms). */
  retryMs: number;
  /** Told of each retried read or write and of errors on idle pooled connections. */
  onError: (err: Error, what: string) => void;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * The PostgreSQL journal store (docs/journal.md "PostgreSQL"). A flush is one transaction, serialised with the
 * other writers of the database by an advisory lock (so global positions commit in order); every head moves
 * only from the seq this writer last saw (optimistic concurrency: a second writer of a stream is refused,
 * StreamConflictError, and the transaction leaves nothing). Every statement is a named (prepared) one.
 */
export class PgStore implements JournalStore {
  readonly backend = 'postgres' as const;

  /** The store's connection pool: the node directory and the session leases (src/nodes/) use the same database. */
  constructor(readonly pool: pg.Pool, private readonly opts: PgStoreOptions) {}

  async loadHeads(): Promise<Map<string, StreamHead>> {
    const { rows } = await this.read<{ stream: string } & StreamHead>({
      name: 'heads', text: 'SELECT stream, epoch, seq, created_at FROM journal_streams',
    });
    return new Map(rows.map((r) => [r.stream, { epoch: r.epoch, seq: r.seq, created_at: r.created_at }]));
  }

  async storedHead(stream: string): Promise<StreamHead | undefined> {
    const { rows } = await this.read<StreamHead>({
      name: 'head', text: 'SELECT epoch, seq, created_at FROM journal_streams WHERE stream = $1', values: [stream],
    });
    return rows[0] && { epoch: rows[0].epoch, seq: rows[0].seq, created_at: rows[0].created_at };
  }

  async get(key: string): Promise<unknown> {
    const { rows } = await this.read<{ value: unknown }>({ name: 'rec', text: 'SELECT value FROM journal_records WHERE key = $1', values: [key] });
    return rows[0]?.value;
  }

  async entries(range: KeyRange): Promise<Array<[string, unknown]>> {
    const { where, values, shape } = rangeWhere(range);
    const order = range.reverse ? 'DESC' : 'ASC';
    const limit = range.limit !== undefined && range.limit >= 0 ? range.limit : null;
    const { rows } = await this.read<{ key: string; value: unknown }>({
      name: `recs:${shape}:${order}`,
      text: `SELECT key, value FROM journal_records WHERE ${where} ORDER BY key ${order} LIMIT $${values.length + 1}`,
      values: [...values, limit],
    });
    return rows.map((r) => [r.key, r.value]);
  }

  async clear(range: KeyRange): Promise<void> {
    const { where, values, shape } = rangeWhere(range);
    await this.pool.query({ name: `clear:${shape}`, text: `DELETE FROM journal_records WHERE ${where}`, values });
  }

  async readEvents(stream: string, lo: number, hi: number, limit: number): Promise<Array<{ seq: number; event: StoredEvent }>> {
    const { rows } = await this.read<{ seq: number; data: StoredEvent }>({
      name: 'events',
      text: 'SELECT seq, data FROM journal_events WHERE stream = $1 AND seq >= $2::bigint AND seq <= $3::bigint ORDER BY seq LIMIT $4',
      values: [stream, lo, hi, limit >= 0 ? limit : null],
    });
    return rows.map((r) => ({ seq: r.seq, event: r.data }));
  }

  async *scanAll(): AsyncGenerator<{ stream: string; seq: number; event: StoredEvent }> {
    let after = '0';
    for (;;) {
      const { rows } = await this.read<{ position: string; stream: string; seq: number; data: StoredEvent }>({
        name: 'scan', text: 'SELECT position, stream, seq, data FROM journal_events WHERE position > $1 ORDER BY position LIMIT $2', values: [after, SCAN_PAGE],
      });
      for (const r of rows) yield { stream: r.stream, seq: r.seq, event: r.data };
      if (rows.length < SCAN_PAGE) return;
      after = rows[rows.length - 1].position;
    }
  }

  /** The highest position committed (`'0'`: none); read before the heads are loaded, where a follower starts. */
  async lastPosition(): Promise<string> {
    const { rows } = await this.read<{ p: string }>({ name: 'last-position', text: 'SELECT coalesce(max(position), 0)::text AS p FROM journal_events' });
    return rows[0].p;
  }

  /** Events with position > `after`, in position order (= commit order), with their stream's epoch; at most `limit`. */
  async readSince(after: string, limit: number): Promise<FollowedRow[]> {
    const { rows } = await this.read<FollowedRow>({
      name: 'since',
      text: `SELECT e.position, false AS removed, e.stream, e.seq, s.epoch, s.created_at, e.data
             FROM journal_events e JOIN journal_streams s ON s.stream = e.stream WHERE e.position > $1::bigint
             UNION ALL
             SELECT r.position, true, r.stream, 0, '', '', null FROM journal_removals r WHERE r.position > $1::bigint
             ORDER BY position LIMIT $2`,
      values: [after, limit],
    });
    return rows.map((r) => ({ ...r, position: String(r.position) }));
  }

  /**
   * Runs `fn` while no other writer of the database can commit (the append lock held by a transaction of its own):
   * what `fn` reads (through this store's other connections) is one moment, and what it writes with `write` is in
   * that transaction, committed when `fn` resolves (journal/pg/follower.ts `resync`). Not retried: a database lost
   * meanwhile fails it.
   */
  whileLocked<T>(fn: (write: (units: WriteUnit[]) => Promise<void>) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, async (client) => {
      await client.query({ name: 'lock', text: 'SELECT pg_advisory_xact_lock($1)', values: [APPEND_LOCK] });
      return fn((units) => writeSegments(client, units));
    });
  }

  /**
   * One transaction for the whole flush. While the database is unreachable the write is retried (bounded by
   * `retryMs`); a retry first checks whether the lost attempt committed after all (its first event is stored
   * with the same record), so nothing is written twice.
   */
  async write(units: WriteUnit[]): Promise<void> {
    await this.retrying('journal write', async (attempt) => {
      if (attempt > 0 && (await this.landed(units))) return;
      await inTransaction(this.pool, (client) => writeSegments(client, units));
    });
  }

  /**
   * One statement, retried like a write while the database is unreachable (bounded by `retryMs`): a read during a
   * database restart waits for it instead of failing the request or the rebuild that made it.
   */
  private read<R extends pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>> {
    return this.retrying('journal read', () => this.pool.query<R>(config));
  }

  /** `fn` until it succeeds, fails for another reason than an unreachable database, or `retryMs` has passed. */
  private async retrying<T>(what: string, fn: (attempt: number) => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.opts.retryMs;
    const sleep = this.opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn(attempt);
      } catch (err) {
        if (!unreachable(err) || Date.now() >= deadline) throw err;
        this.opts.onError(err as Error, `${what} failed (attempt ${attempt + 1}); retrying`);
        await sleep(Math.min(200 * 2 ** attempt, 2_000));
      }
    }
  }

  private async landed(units: WriteUnit[]): Promise<boolean> {
    const first = units.find((u) => u.events.length)?.events[0];
    if (!first) return false;
    const { rows } = await this.pool.query<{ data: unknown }>({
      name: 'landed', text: 'SELECT data FROM journal_events WHERE stream = $1 AND seq = $2', values: [first.stream, first.seq],
    });
    return rows.length > 0 && JSON.stringify(rows[0].data) === first.text;
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/** The units in order; consecutive units merge into one set of statements until a unit removes a stream. */
async function writeSegments(client: pg.PoolClient, units: WriteUnit[]): Promise<void> {
  await client.query({ name: 'lock', text: 'SELECT pg_advisory_xact_lock($1)', values: [APPEND_LOCK] });
  let segment: WriteUnit[] = [];
  for (const unit of units) {
    if (unit.removed.length && segment.length) {
      await writeSegment(client, segment);
      segment = [];
    }
    segment.push(unit);
  }
  if (segment.length) await writeSegment(client, segment);
  // The followers on other nodes (journal/pg/follower.ts): delivered at commit, dropped on rollback. No payload:
  // a follower reads past the last position it saw, whatever woke it.
  if (units.some((u) => u.events.length || u.removed.length)) {
    await client.query({ name: 'notify', text: `SELECT pg_notify('${COMMIT_CHANNEL}', '')` });
  }
}

async function writeSegment(client: pg.PoolClient, units: WriteUnit[]): Promise<void> {
  for (const r of units[0].removed) await removeStream(client, r.stream, r.ranges);
  const heads = new Map<string, HeadWrite>();
  for (const u of units) for (const h of u.heads) heads.set(h.stream, { ...h, expected: heads.has(h.stream) ? heads.get(h.stream)!.expected : h.expected });
  await writeHeads(client, [...heads.values()]);
  const events = units.flatMap((u) => u.events);
  if (events.length) {
    await refusingDuplicates(client.query({
      name: 'append',
      text: 'INSERT INTO journal_events (stream, seq, type, data) SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::json[])',
      values: [events.map((e) => e.stream), events.map((e) => e.seq), events.map((e) => e.type), events.map((e) => e.text)],
    }), events[0].stream);
  }
  await writeRecords(client, lastWritePerKey(units.flatMap((u) => u.records)));
}

async function writeHeads(client: pg.PoolClient, heads: HeadWrite[]): Promise<void> {
  const created = heads.filter((h) => h.expected === undefined);
  const moved = heads.filter((h) => h.expected !== undefined);
  if (created.length) {
    await refusingDuplicates(client.query({
      name: 'create-streams',
      text: 'INSERT INTO journal_streams (stream, epoch, seq, created_at) SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[])',
      values: [created.map((h) => h.stream), created.map((h) => h.head.epoch), created.map((h) => h.head.seq), created.map((h) => h.head.created_at)],
    }), created[0].stream);
  }
  if (moved.length) {
    const res = await client.query({
      name: 'move-heads',
      text: `UPDATE journal_streams s SET seq = v.seq FROM unnest($1::text[], $2::int[], $3::int[]) AS v(stream, expected, seq)
             WHERE s.stream = v.stream AND s.seq = v.expected`,
      values: [moved.map((h) => h.stream), moved.map((h) => h.expected), moved.map((h) => h.head.seq)],
    });
    if (res.rowCount !== moved.length) {
      throw new StreamConflictError(moved.length === 1 ? moved[0].stream : `one of ${moved.map((h) => h.stream).join(', ')}`, 'its stored head moved');
    }
  }
}

async function removeStream(client: pg.PoolClient, stream: string, ranges: KeyRange[]): Promise<void> {
  await client.query({ name: 'drop-events', text: 'DELETE FROM journal_events WHERE stream = $1', values: [stream] });
  const dropped = await client.query({ name: 'drop-stream', text: 'DELETE FROM journal_streams WHERE stream = $1', values: [stream] });
  if (dropped.rowCount) await client.query({ name: 'removal', text: 'INSERT INTO journal_removals (stream) VALUES ($1)', values: [stream] });
  for (const range of ranges) {
    const { where, values, shape } = rangeWhere(range);
    await client.query({ name: `clear:${shape}`, text: `DELETE FROM journal_records WHERE ${where}`, values });
  }
}

async function writeRecords(client: pg.PoolClient, ops: EncodedOp[]): Promise<void> {
  const dels = ops.filter((o) => o.type === 'del').map((o) => o.key);
  const puts = ops.filter((o): o is Extract<EncodedOp, { type: 'put' }> => o.type === 'put');
  if (dels.length) await client.query({ name: 'del-recs', text: 'DELETE FROM journal_records WHERE key = ANY($1::text[])', values: [dels] });
  if (puts.length) {
    await client.query({
      name: 'put-recs',
      text: `INSERT INTO journal_records (key, value) SELECT * FROM unnest($1::text[], $2::json[])
             ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      values: [puts.map((p) => p.key), puts.map((p) => p.value)],
    });
  }
}

/** A unique violation on a stream or event row: another writer got there first. */
async function refusingDuplicates<T>(query: Promise<T>, stream: string): Promise<T> {
  try {
    return await query;
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw new StreamConflictError(stream, 'a seq or stream it was about to write exists');
    throw err;
  }
}

function lastWritePerKey(ops: EncodedOp[]): EncodedOp[] {
  const byKey = new Map<string, EncodedOp>();
  for (const op of ops) byKey.set(op.key, op);
  return byKey.size === ops.length ? ops : [...byKey.values()];
}

/** The WHERE clause of a key range (bytewise order: the key column is COLLATE "C"); `shape` names its statement. */
function rangeWhere(range: KeyRange): { where: string; values: string[]; shape: string } {
  const parts: string[] = [];
  const values: string[] = [];
  for (const [op, sql] of [['gt', '>'], ['gte', '>='], ['lt', '<'], ['lte', '<=']] as const) {
    const v = range[op];
    if (v === undefined) continue;
    values.push(v);
    parts.push(`key ${sql} $${values.length}`);
  }
  return { where: parts.length ? parts.join(' AND ') : 'true', values, shape: parts.map((p) => p.split(' ')[1]).join('') || 'all' };
}

/** The database cannot be reached (refused, reset, shut down, no answer): worth a retry, unlike a refused statement. */
export function unreachable(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | undefined;
  const code = e?.code ?? '';
  if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', '57P01', '57P02', '57P03', '53300'].includes(code)) return true;
  if (code.startsWith('08')) return true;
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(e?.message ?? '');
}
