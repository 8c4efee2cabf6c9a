import type { ExecutionContext } from 'ava';
import { Level } from 'level';
import path from 'node:path';
import { Journal, type JournalOptions } from '../../journal/journal.ts';
import { LevelStore } from '../../journal/level-store.ts';
import type { Db } from '../../journal/slots.ts';
import type { JournalStore } from '../../journal/store.ts';
import { openPgStore } from '../../journal/pg/open.ts';
import { freshDatabase } from './pg.ts';
import type { JournalEvent } from '../../journal/types.ts';
import { tempDir } from './fs.ts';
import type { TestServer } from './server.ts';

/** The journal backends every backend-neutral journal test runs on. */
export const BACKENDS = ['leveldb', 'postgres'] as const;
export type Backend = (typeof BACKENDS)[number];

/** A fresh, empty store: LevelDB in a temp dir, or a new database on the test PostgreSQL (test/helpers/pg.ts). */
export async function openStore(backend: Backend, url?: string): Promise<JournalStore> {
  if (backend === 'postgres') {
    return openPgStore(url ?? (await freshDatabase()), { onError: (err, what) => process.stderr.write(`${what}: ${err.message}\n`) });
  }
  const db = new Level<string, any>(path.join(await tempDir(), 'db'), { valueEncoding: 'json' });
  await db.open();
  return new LevelStore(db);
}

/** `serve` options for a test server on `backend`: a fresh PostgreSQL database, or the home's LevelDB slots. */
export async function serveOptions(backend: Backend): Promise<{ journalUrl?: string }> {
  return backend === 'postgres' ? { journalUrl: await freshDatabase() } : {};
}

/**
 * A journal (or `Kind`, a subclass) on a fresh LevelDB in a temp dir, closed when the test ends.
 * `brokenOk`: the test breaks the store on purpose, so closing may fail.
 */
export async function openJournal<J extends Journal = Journal>(
  t: ExecutionContext,
  opts: Omit<JournalOptions, 'db' | 'store'> & { brokenOk?: boolean; backend?: Backend } = {},
  Kind: new (o: JournalOptions) => J = Journal as unknown as new (o: JournalOptions) => J,
): Promise<J> {
  const { brokenOk, backend = 'leveldb', ...options } = opts;
  const journal = new Kind({ store: await openStore(backend), ...options });
  await journal.load();
  t.teardown(() => (brokenOk ? journal.close().catch(() => undefined) : journal.close()));
  return journal;
}

/** Every event of `type` the server's journal commits from now on, in order (the array fills as they come). */
export function committedOf(s: TestServer, type: string): JournalEvent[] {
  const seen = s.committed((e) => e.type === type);
  return seen;
}

/** The LevelDB database under a journal on the embedded store (tests that break or inspect LevelDB itself). */
export function levelDb(journal: Journal): Db {
  if (!(journal.store instanceof LevelStore)) throw new Error('not a LevelDB journal');
  return journal.store.db;
}
