import type { Journal } from '../../journal/journal.ts';
import type { JournalEvent } from '../../journal/types.ts';
import { LazyProjection } from '../lazy-projection.ts';
import type { RecordWrite } from '../projection.ts';
import { ExistingPaths } from './existing-paths.ts';
import { existingFiles, fileHistoryReducer, type FileHistoryState } from './reducer.ts';

/** Paths a deletion check looks at (the most recently changed ones the history last saw existing). */
const EXISTING_PATHS_MAX = 256;

/**
 * The file histories of the sessions read most recently (a lazy projection: folded on first read, then kept
 * up to date), and beside them, for many more sessions, just the paths each last saw existing (existing-paths.ts).
 */
export class FileHistoryProjection extends LazyProjection<FileHistoryState> {
  private readonly existing = new ExistingPaths(EXISTING_PATHS_MAX);

  constructor(private readonly store: Journal) {
    super(store, fileHistoryReducer);
  }

  override apply(event: JournalEvent): RecordWrite[] {
    this.existing.apply(event);
    return super.apply(event);
  }

  override reset(): void {
    this.existing.clear();
    super.reset();
  }

  /**
   * The paths the history last saw existing, newest change first, at most `limit` (<= EXISTING_PATHS_MAX):
   * from the paths kept for the session, or from one fold of it when they are not (which keeps them).
   */
  async existingPaths(stream: string, limit = EXISTING_PATHS_MAX): Promise<string[]> {
    const kept = this.existing.get(stream, this.store.head(stream));
    if (kept) return kept.slice(0, limit);
    return this.read(stream, (s, seq) => {
      const paths = existingFiles(s, EXISTING_PATHS_MAX);
      this.existing.seed(stream, this.store.head(stream), seq, s.turns.length > 0, paths);
      return paths.slice(0, limit);
    });
  }
}

export function fileHistoryProjection(journal: Journal): FileHistoryProjection {
  return new FileHistoryProjection(journal);
}
