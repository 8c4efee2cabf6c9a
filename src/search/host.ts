import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import type { SearchOp } from '../../projections/search/documents.ts';
import { SearchEngine, type Position, type SearchBudgets, type SearchQuery } from '../../projections/search/engine.ts';
import { FileTexts } from './file-texts.ts';
import { readSnapshot, writeSnapshot } from './snapshot.ts';

const INDEX_FILE = 'index.bin';
const TEXTS_FILE = 'texts.bin';

/** A search answer with the index's size when it was computed. */
export type SearchReply = { page: ReturnType<SearchEngine['search']>; documents: number; sessions: number };

/** What opening an index found: a snapshot's journal positions, or nothing (build from seq 0) and why. */
export type Opened = { restored: true; positions: Position[] } | { restored: false; reason?: string };

/** Whether `dir` holds a snapshot to try (the server decides whether to wait for a worker to read it). */
export function hasSnapshot(dir: string | undefined): boolean {
  return !!dir && existsSync(path.join(dir, INDEX_FILE));
}

/** Removes the index files of `dir` (`--rebuild-projections`, `svc-code reindex`). */
export function dropIndexFiles(dir: string): void {
  rmSync(path.join(dir, INDEX_FILE), { force: true });
  rmSync(path.join(dir, `${INDEX_FILE}.tmp`), { force: true });
  rmSync(path.join(dir, TEXTS_FILE), { force: true });
}

/**
 * The index where it runs (the worker thread, or the server process): the engine, its texts file and its
 * snapshot under `dir` (docs/search.md "Persistence"). Without a dir the texts stay in memory and nothing
 * is saved.
 */
export class IndexHost {
  private engine: SearchEngine;
  private texts?: FileTexts;

  constructor(private readonly budgets: SearchBudgets | undefined, private readonly dir: string | undefined) {
    this.engine = new SearchEngine(budgets);
  }

  /** Loads the snapshot when `restore` (falling back to an empty index when it cannot be read), else starts empty. */
  open(restore: boolean): Opened {
    this.texts?.close();
    this.texts = undefined;
    if (!this.dir) {
      this.engine = new SearchEngine(this.budgets);
      return { restored: false };
    }
    mkdirSync(this.dir, { recursive: true });
    let reason: string | undefined;
    if (restore) {
      try {
        const { state, textsLength } = readSnapshot(path.join(this.dir, INDEX_FILE));
        this.texts = new FileTexts(path.join(this.dir, TEXTS_FILE), textsLength);
        this.engine = SearchEngine.restore(state, this.texts, this.budgets);
        return { restored: true, positions: state.positions };
      } catch (err) {
        this.texts?.close();
        reason = (err as Error).message;
      }
    }
    dropIndexFiles(this.dir);
    this.texts = new FileTexts(path.join(this.dir, TEXTS_FILE), 0);
    this.engine = new SearchEngine(this.budgets, this.texts);
    return { restored: false, ...(reason ? { reason } : {}) };
  }

  apply(ops: SearchOp[], marks: Position[]): void {
    for (const op of ops) this.engine.apply(op);
    for (const [stream, seq, epoch] of marks) this.engine.mark(stream, seq, epoch);
  }

  /** The build is done: spare capacity goes back. */
  trim(): void {
    this.engine.trim();
  }

  /** Writes the snapshot (texts first, on disk, then the index that counts them). */
  save(): void {
    if (!this.dir || !this.texts) return;
    this.texts.sync();
    writeSnapshot(path.join(this.dir, INDEX_FILE), this.engine.state(), this.texts.length);
  }

  /** The engine's sizes and this thread's heap (the log line at ready, the bench). */
  stats(): Record<string, number> {
    const m = process.memoryUsage();
    const mb = (n: number) => Math.round(n / 1e5) / 10;
    const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
    return {
      ...this.engine.stats(), heap_used_mb: mb(m.heapUsed), heap_total_mb: mb(m.heapTotal), new_space_mb: mb(young), external_mb: mb(m.external),
      array_buffers_mb: mb(m.arrayBuffers),
      // The thread's heap limit: its old generation plus three times its semi-space (two semi-spaces and the young
      // large-object space), so the worker's young generation shows against the main thread's (test/search/worker-heap.test.ts).
      heap_limit_mb: mb(getHeapStatistics().heap_size_limit),
    };
  }

  search(q: SearchQuery): SearchReply {
    return { page: this.engine.search(q), documents: this.engine.documents, sessions: this.engine.sessionCount };
  }

  close(): void {
    this.texts?.close();
    this.texts = undefined;
  }
}
