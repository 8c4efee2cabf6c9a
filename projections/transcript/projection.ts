import type { Journal } from '../../journal/journal.ts';
import { foldStream, LazyProjection } from '../lazy-projection.ts';
import { liveTranscriptReducer, transcriptReducer } from './reducer.ts';
import type { TranscriptState } from './state.ts';

/** The transcripts of the sessions read most recently, kept up to date as their events are appended. */
export type TranscriptProjection = LazyProjection<TranscriptState>;

export function transcriptProjection(journal: Journal): TranscriptProjection {
  return new LazyProjection(journal, transcriptReducer);
}

/** A fresh fold of a session's whole stream (what a kept transcript must equal). */
export function foldTranscript(journal: Journal, sessionId: string): Promise<{ state: TranscriptState; seq: number }> {
  return foldStream(journal, transcriptReducer, sessionId);
}

/** A fresh fold of the client records (what GET /transcript answers from), for one-off readers such as the export. */
export function foldTranscriptRecords(journal: Journal, sessionId: string): Promise<{ state: TranscriptState; seq: number }> {
  return foldStream(journal, liveTranscriptReducer, sessionId);
}
