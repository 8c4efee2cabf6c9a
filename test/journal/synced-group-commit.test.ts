import test from 'ava';
import { Level } from 'level';
import path from 'node:path';
import { Journal, type JournalOptions } from '../../journal/journal.ts';
import { LevelStore } from '../../journal/level-store.ts';
import type { WriteUnit } from '../../journal/store.ts';
import { readSettings } from '../../src/app/settings.ts';
import { tempDir } from '../helpers/fs.ts';

// The LevelDB journal's default durability (docs/journal.md "Durability"): every group-commit batch is fsynced
// before any append in it is acknowledged, and the appends that wait while a batch is on its way to the disk share
// the next one (one fsync for all of them).

/** A LevelDB store that records each write (units, sync) and holds the first one until `release` is called. */
class GatedStore extends LevelStore {
  readonly writes: Array<{ units: number; sync: boolean }> = [];
  private gate: Promise<void> | null;
  release!: () => void;
  constructor(db: ConstructorParameters<typeof LevelStore>[0]) {
    super(db);
    this.gate = new Promise((resolve) => (this.release = resolve));
  }

  override async write(units: WriteUnit[], sync: boolean): Promise<void> {
    this.writes.push({ units: units.length, sync });
    const gate = this.gate;
    this.gate = null;
    if (gate) await gate;
    await super.write(units, sync);
  }
}

async function gatedJournal(t: import('ava').ExecutionContext, opts: Omit<JournalOptions, 'store' | 'db'> = {}) {
  const db = new Level<string, any>(path.join(await tempDir(), 'db'), { valueEncoding: 'json' });
  await db.open();
  const store = new GatedStore(db);
  const journal = new Journal({ store, ...opts });
  await journal.load();
  t.teardown(() => journal.close());
  return { journal, store };
}

const ev = (stream: string, n: number) => ({ stream, type: 'bench.event', payload: { n } });

test('by default each batch is synced, and every append waiting behind a batch on its way to the disk shares the next one', async (t) => {
  const { journal, store } = await gatedJournal(t);
  const acked: number[] = [];
  const first = journal.append([ev('a', 0)]).then(() => acked.push(0));
  // 40 appends on 8 streams arrive while the first batch is held before the disk: none is acknowledged yet.
  const waiting = Array.from({ length: 40 }, (_, i) => journal.append([ev(`s${i % 8}`, i + 1)]).then(() => acked.push(i + 1)));
  await new Promise((resolve) => setImmediate(resolve));
  t.deepEqual(acked, [], 'nothing is acknowledged before its batch is on disk');
  store.release();
  await Promise.all([first, ...waiting]);
  t.deepEqual(store.writes, [{ units: 1, sync: true }, { units: 40, sync: true }], 'two synced writes: the held one, then one for all 40 that waited');
  t.deepEqual((await journal.readRange('s0', 1)).map((e) => (e.payload as { n: number }).n), [1, 9, 17, 25, 33]);
});

test('sync: false (SVC_CODE_JOURNAL_FSYNC=0) writes the same batches unsynced', async (t) => {
  const { journal, store } = await gatedJournal(t, { sync: false });
  const all = [journal.append([ev('a', 0)]), ...Array.from({ length: 5 }, (_, i) => journal.append([ev('b', i)]))];
  await new Promise((resolve) => setImmediate(resolve));
  store.release();
  await Promise.all(all);
  t.deepEqual(store.writes, [{ units: 1, sync: false }, { units: 5, sync: false }]);
});

test('the setting: synced unless SVC_CODE_JOURNAL_FSYNC=0', (t) => {
  t.true(readSettings({}).journalFsync);
  t.true(readSettings({ SVC_CODE_JOURNAL_FSYNC: '1' }).journalFsync);
  t.false(readSettings({ SVC_CODE_JOURNAL_FSYNC: '0' }).journalFsync);
});
