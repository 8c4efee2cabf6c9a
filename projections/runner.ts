import type { Journal } from '../journal/journal.ts';
import { PROJECTION_RANGE, projectionKey, projectionRange, versionKey } from '../journal/keys.ts';
import type { JournalEvent, ProjectionWrite } from '../journal/types.ts';
import type { Projection, RecordWrite } from './projection.ts';

const REBUILD_CHUNK = 2000;

function toWrite(name: string, w: RecordWrite): ProjectionWrite {
  const key = projectionKey(name, w.key);
  return 'delete' in w ? { type: 'del', key } : { type: 'put', key, value: w.value };
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
    await this.load(this.projections.filter((p) => !stale.includes(p)));
    if (stale.length) await this.rebuild(stale);
    this.journal.setDeriver(this.derive, () => this.reload());
    return { rebuilt: stale.map((p) => p.name) };
  }

  /**
   * Every projection's in-memory state read again from its records (a lazy one drops its folds): what an append
   * applied when it was accepted is gone if the append was not written. The journal calls it after a conflict on
   * the shared PostgreSQL journal (journal/journal.ts `recover`), while no node can commit.
   */
  async reload(): Promise<void> {
    await this.load(this.projections);
    for (const p of this.projections) if (p.lazy || p.onDemand) p.reset();
  }

  /**
   * One projection at a time (the start holds one projection's records in memory at once, not all of them): its
   * records read, then its state swapped in one synchronous step, so a reader never sees it half-loaded.
   */
  private async load(targets: Projection[]): Promise<void> {
    for (const p of targets) {
      if (p.onDemand || p.lazy) continue;
      const records = await this.journal.store.entries(projectionRange(p.name));
      p.reset();
      const prefix = projectionRange(p.name).gte.length;
      for (const [key, value] of records) p.load(key.slice(prefix), value);
    }
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
