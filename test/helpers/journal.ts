import type { ExecutionContext } from 'ava';
import { Level } from 'level';
import path from 'node:path';
import { Journal, type JournalOptions } from '../../journal/journal.ts';
import { LevelStore } from '../../journal/level-store.ts';
import type { Db } from '../../journal/slots.ts';
import type { JournalEvent } from '../../journal/types.ts';
import { tempDir } from './fs.ts';
import type { TestServer } from './server.ts';

/**
 * A journal (or `Kind`, a subclass) on a fresh LevelDB in a temp dir, closed when the test ends.
 * `brokenOk`: the test breaks the store on purpose, so closing may fail.
 */
export async function openJournal<J extends Journal = Journal>(
  t: ExecutionContext,
  opts: Omit<JournalOptions, 'db'> & { brokenOk?: boolean } = {},
  Kind: new (o: JournalOptions) => J = Journal as unknown as new (o: JournalOptions) => J,
): Promise<J> {
  const { brokenOk, ...options } = opts;
  const db = new Level<string, any>(path.join(await tempDir(), 'db'), { valueEncoding: 'json' });
  await db.open();
  const journal = new Kind({ db, ...options });
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
