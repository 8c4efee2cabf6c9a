import type { Journal } from '../../journal/journal.ts';
import { LazyProjection } from '../lazy-projection.ts';
import { fileHistoryReducer, type FileHistoryState } from './reducer.ts';

/** The file histories of the sessions read most recently (a lazy projection: folded on first read, then kept up to date). */
export type FileHistoryProjection = LazyProjection<FileHistoryState>;

export function fileHistoryProjection(journal: Journal): FileHistoryProjection {
  return new LazyProjection(journal, fileHistoryReducer);
}
