import type { Journal } from '../journal/journal.ts';
import { PROJECTION_RANGE, projectionKey, projectionRange, versionKey } from '../journal/keys.ts';
import type { JournalEvent, ProjectionWrite } from '../journal/types.ts';
import type { Projection, RecordWrite } from './projection.ts';

const REBUILD_CHUNK = 2000;

function toWrite(name: string, w: RecordWrite): ProjectionWrite {
  const key = projectionKey(name, w.key);
  return 'delete' in w ? { type: 'del', key } : { type: 'put', key, value: w.value };
}

/** Whether `start` and `reload` load the projection's records into memory (lazy and on-demand ones read later). */
function keepsRecords(p: Projection): boolean {
  return !p.onDemand && !p.lazy;
}

/** Replaces the projection's state with its records, in one synchronous step. */
function swapIn(p: Projection, records: Array<[string, unknown]>): void {
  p.reset();
  const prefix = projectionRange(p.name).gte.length;
  for (const [key, value] of records) p.load(key.slice(prefix), value);
}

const eventKey = (e: JournalEvent): string => `${e.stream}\u0000${e.epoch}\u0000${e.seq}`;

/**
 * Keeps a set of projections in step with the journal: loads them at start
 * (or rebuilds them from the journal when their version changed or their data
 * is missing), and derives their writes for every append.
 */
export class ProjectionRunner {
  constructor(private readonly journal: Journal, private readonly projections: Projection[]) {}

  /**
   * An event some projections applied before the next one threw: a derive of the same event again (the follower
   * retries a followed event) starts at the projection that threw, so the ones before it do not apply it twice.
   */
  private partial: { key: string; done: number } | undefined;

  /** Applies events to every projection and returns the writes for the same batch. */
  derive = (events: JournalEvent[]): ProjectionWrite[] => {
    const writes: ProjectionWrite[] = [];
    for (const e of events) {
      // Hot path: the key is built only when an earlier derive threw.
      const from = this.partial && this.partial.key === eventKey(e) ? this.partial.done : 0;
      this.partial = undefined;
      for (let i = from; i < this.projections.length; i++) {
        const p = this.projections[i];
        try {
          for (const w of p.apply(e)) writes.push(toWrite(p.name, w));
        } catch (err) {
          this.partial = { key: eventKey(e), done: i };
          throw err;
        }
      }
    }
    return writes;
  };

  async start(opts: { forceRebuild?: boolean } = {}): Promise<{ rebuilt: string[] }> {
    const stale: Projection[] = [];
    for (const p of this.projections) {
      const stored = (await this.journal.store.get(versionKey(p.name))) as number | undefined;
      if (opts.forceRebuild || stored !== p.version) stale.push(p);
    }
    await this.loadEach(this.projections.filter((p) => !stale.includes(p)));
    if (stale.length) await this.rebuild(stale);
    this.journal.setDeriver(this.derive, () => this.reload());
    return { rebuilt: stale.map((p) => p.name) };
  }

  /**
   * Every projection's in-memory state read again from its records (a lazy one drops its folds): what an append
   * applied when it was accepted is gone if the append was not written. The journal calls it after a conflict on
   * the shared PostgreSQL journal (journal/journal.ts `recover`), while no node can commit. Every record is read
   * first and every projection swapped in the same tick: a reader never sees one projection without the taken-back
   * applies next to another still holding them. (Rare, on a running daemon; the start reads one at a time.)
   */
  async reload(): Promise<void> {
    const loaded = this.projections.filter(keepsRecords);
    const records = await Promise.all(loaded.map((p) => this.readRecords(p)));
    loaded.forEach((p, i) => swapIn(p, records[i]));
    for (const p of this.projections) if (!keepsRecords(p)) p.reset();
  }

  /**
   * At start, one projection at a time: its records are read, then its state swapped in synchronously (a reader
   * never sees one half-loaded), so only one projection's records are held beside the loaded states, not all.
   */
  private async loadEach(targets: Projection[]): Promise<void> {
    for (const p of targets.filter(keepsRecords)) swapIn(p, await this.readRecords(p));
  }

  private readRecords(p: Projection): Promise<Array<[string, unknown]>> {
    return this.journal.store.entries(projectionRange(p.name));
  }

  /**
   * Replays the whole journal into empty projections and rewrites their records. A lazy projection is
   * only emptied: it folds each stream again when it is next read.
   */
  async rebuild(targets: Projection[]): Promise<void> {
    for (const p of targets) {
      p.reset();
      await this.journal.store.clear(projectionRange(p.name));
    }
    const replayed = targets.filter((p) => !p.lazy);
    const latest = new Map<string, ProjectionWrite>();
    if (replayed.length) {
      for await (const e of this.journal.scanAll()) {
        for (const p of replayed) for (const w of p.apply(e)) {
          const write = toWrite(p.name, w);
          latest.set(write.key, write);
        }
      }
    }
    let chunk: ProjectionWrite[] = [];
    for (const w of latest.values()) {
      if (w.type === 'del') continue;
      chunk.push(w);
      if (chunk.length >= REBUILD_CHUNK) {
        await this.journal.writeRaw(chunk);
        chunk = [];
      }
    }
    if (chunk.length) await this.journal.writeRaw(chunk);
    await this.journal.writeRaw(targets.map((p) => ({ type: 'put', key: versionKey(p.name), value: p.version })));
  }

  /** Removes every projection record and version (used by tests and `--rebuild-projections`). */
  static async wipe(journal: Journal): Promise<void> {
    await journal.store.clear(PROJECTION_RANGE);
    await journal.store.clear({ gte: 'v!', lt: 'v!~' });
  }
}
