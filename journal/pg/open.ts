import pg from 'pg';
import { PgStore } from './pg-store.ts';
import { JournalSchemaError, migrate } from './schema.ts';
import { DEFAULT_JOURNAL_RETRY_MS } from './defaults.ts';

export interface PgOpenOptions {
  /** How long to wait for a connection (ms): a start never hangs on an unreachable database. */
  connectTimeoutMs?: number;
  /** Per-statement limit (PostgreSQL `statement_timeout`, ms). */
  statementTimeoutMs?: number;
  /** How long a write retries while the database is unreachable (ms). */
  retryMs?: number;
  poolSize?: number;
  onError: (err: Error, what: string) => void;
}

/** Whether a journal URL carries a password (in its user part or its query string). */
export function hasPassword(url: string): boolean {
  try {
    const u = new URL(url);
    return u.password !== '' || u.searchParams.has('password');
  } catch {
    return false;
  }
}

/** The journal database cannot be used; the message is one line naming the problem (no password). */
export class JournalOpenError extends Error {
  override readonly name = 'JournalOpenError';
}

/**
 * `postgres://user:pass@host:port/db?opts` as `postgres://user@host:port/db`, for messages: without the password
 * and without the query string, which may hold one too (`?password=...`).
 */
export function describeUrl(url: string): string {
  return withoutPassword(url, (u) => {
    u.search = '';
    u.hash = '';
  });
}

/**
 * A stable name of the database a URL points at (hashed into the journal's instance id): the URL without its password.
 * Unchanged since the first PostgreSQL release (it keeps the query string): an existing home keeps its instance id.
 */
export function journalIdentity(url: string): string {
  return withoutPassword(url);
}

/** The URL as text without the password of its user part (and without what `strip` removes besides). */
function withoutPassword(url: string, strip?: (u: URL) => void): string {
  try {
    const u = new URL(url);
    u.password = '';
    strip?.(u);
    return u.toString().replace(/:@/, '@');
  } catch {
    return '(unparseable URL)';
  }
}

/**
 * Connects to the PostgreSQL journal, checks it answers within the connect timeout, applies the migrations and
 * returns its store. Every failure is a JournalOpenError with one clear line.
 */
export async function openPgStore(url: string, o: PgOpenOptions): Promise<PgStore> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new JournalOpenError('invalid journal URL: expected postgres://user:password@host:port/database');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new JournalOpenError(`invalid journal URL scheme "${parsed.protocol}": expected postgres://user:password@host:port/database`);
  }
  const connectMs = o.connectTimeoutMs ?? 5_000;
  const pool = new pg.Pool({
    connectionString: url,
    max: o.poolSize ?? 4,
    connectionTimeoutMillis: connectMs,
    statement_timeout: o.statementTimeoutMs ?? 30_000,
    idle_in_transaction_session_timeout: 60_000,
    keepAlive: true,
    // Acknowledged means on the database's disk (and its synchronous standbys, when it has any).
    options: '-c synchronous_commit=on',
    application_name: 'svc-code',
  });
  // An idle pooled connection that breaks (the database restarted) must not crash the daemon: the pool drops it.
  pool.on('error', (err) => o.onError(err, 'idle journal connection failed'));
  try {
    await pool.query('SELECT 1');
    await migrate(pool);
  } catch (err) {
    await pool.end();
    throw new JournalOpenError(openFailure(err, url, connectMs), { cause: err });
  }
  return new PgStore(pool, { retryMs: o.retryMs ?? DEFAULT_JOURNAL_RETRY_MS, onError: o.onError });
}

function openFailure(err: unknown, url: string, connectMs: number): string {
  if (err instanceof JournalSchemaError) return err.message;
  const e = err as { code?: string; message?: string };
  const where = describeUrl(url);
  switch (e.code) {
    case '28P01':
    case '28000':
      return `the journal database refused the login (${where}): ${e.message}`;
    case '3D000':
      return `the journal database does not exist (${where}): ${e.message}`;
    case 'ECONNREFUSED':
      return `cannot connect to the journal database (${where}): connection refused`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot connect to the journal database (${where}): unknown host`;
  }
  if (/timeout/i.test(e.message ?? '')) return `cannot connect to the journal database (${where}): no answer within ${connectMs} ms`;
  return `cannot open the journal database (${where}): ${e.message ?? String(err)}`;
}
