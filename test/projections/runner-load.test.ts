import test, { type ExecutionContext } from 'ava';
import type { Journal } from '../../journal/journal.ts';
import type { Projection } from '../../projections/projection.ts';
import { ProjectionRunner } from '../../projections/runner.ts';
import { openJournal } from '../helpers/journal.ts';

// How the runner brings projections into memory: at start one at a time (a daemon's start never holds every
// projection's records at once), after a conflict (reload) all read first and swapped together.

/** Counts events per stream; one record per stream. */
class Counter implements Projection {
  readonly version = 1;
  readonly counts = new Map<string, number>();
  resets = 0;
  constructor(readonly name: string, readonly lazy = false) {}
  apply(e: { stream: string }) {
    const n = (this.counts.get(e.stream) ?? 0) + 1;
    this.counts.set(e.stream, n);
    return [{ key: e.stream, value: n }];
  }
  load(key: string, value: unknown) {
    this.counts.set(key, value as number);
  }
  reset() {
    this.resets++;
    this.counts.clear();
  }
}

const NAMES = ['alpha', 'beta', 'gamma'];

/** A journal whose projections already hold records: three streams, written through a first runner. */
async function journalWithRecords(t: ExecutionContext): Promise<Journal> {
  const journal = await openJournal(t);
  await new ProjectionRunner(journal, NAMES.map((n) => new Counter(n))).start();
  for (const stream of ['s1', 's2', 's3']) await journal.append([{ stream, type: 'x.happened', payload: {} }]);
  await journal.append([{ stream: 's1', type: 'x.happened', payload: {} }]);
  return journal;
}

/** Records every projection-record read: how many ran at once, and which projections were loaded when each began. */
function watchReads(journal: Journal, projections: Counter[]) {
  const seen = { maxInFlight: 0, loadedAtRead: [] as string[][], readsDone: 0 };
  let inFlight = 0;
  const entries = journal.store.entries.bind(journal.store);
  journal.store.entries = async (range) => {
    seen.loadedAtRead.push(projections.filter((p) => p.counts.size > 0).map((p) => p.name));
    seen.maxInFlight = Math.max(seen.maxInFlight, ++inFlight);
    try {
      return await entries(range);
    } finally {
      inFlight--;
      seen.readsDone++;
    }
  };
  return seen;
}

test('start reads and swaps in one projection at a time, each whole before the next is read', async (t) => {
  const journal = await journalWithRecords(t);
  const projections = NAMES.map((n) => new Counter(n));
  const seen = watchReads(journal, projections);
  const { rebuilt } = await new ProjectionRunner(journal, projections).start();
  t.deepEqual(rebuilt, []);
  t.is(seen.maxInFlight, 1, 'one projection\'s records read at a time');
  t.deepEqual(seen.loadedAtRead, [[], ['alpha'], ['alpha', 'beta']], 'the projections before it are loaded when a read begins');
  for (const p of projections) t.deepEqual(Object.fromEntries(p.counts), { s1: 2, s2: 1, s3: 1 }, p.name);
});

test('reload drops what an unwritten append applied, swaps every projection together and resets the lazy ones', async (t) => {
  const journal = await journalWithRecords(t);
  const projections = NAMES.map((n) => new Counter(n));
  const lazy = new Counter('folds', true);
  const runner = new ProjectionRunner(journal, [...projections, lazy]);
  await runner.start();
  // Applied when accepted, never written (what journal `recover` takes back after a conflict).
  runner.derive([{ stream: 's9', seq: 1, epoch: 'e', type: 'x.happened', ts: '', payload: {} } as never]);
  t.is(projections[0].counts.get('s9'), 1);
  lazy.counts.set('s1', 7);

  const seen = watchReads(journal, projections);
  const swapsSeenByReads: number[] = [];
  for (const p of projections) {
    const reset = p.reset.bind(p);
    p.reset = () => {
      swapsSeenByReads.push(seen.readsDone);
      reset();
    };
  }
  await runner.reload();
  t.deepEqual(swapsSeenByReads, [3, 3, 3], 'every read done before the first projection is swapped');
  for (const p of projections) t.deepEqual(Object.fromEntries(p.counts), { s1: 2, s2: 1, s3: 1 }, p.name);
  t.is(lazy.counts.size, 0, 'the lazy projection drops its folds');
});
