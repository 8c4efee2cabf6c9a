import type { JournalEvent } from '../../journal/types.ts';
import type { StreamReducer } from '../projection.ts';
import { interactions } from './interactions.ts';
import { progress } from './progress.ts';
import { records } from './records.ts';
import { recordsAgent } from './records-agent.ts';
import { recordsNotices } from './records-notices.ts';
import { roster } from './roster.ts';
import { NO_OPS, OpList, type EmittedOp, type OpsOut } from './records-state.ts';
import { newTranscriptState, type Family, type TranscriptState } from './state.ts';
import { tasks } from './tasks.ts';
import { turns } from './turns.ts';
import { users } from './users.ts';

/**
 * The record families, in the order they see an event both read: the turns before the user messages
 * (a user message looks up the turn that owns it). The client records are not here: only the live folds
 * (liveTranscriptReducer below) and the export read them, so the transcripts projection does not build them too.
 */
const FAMILIES: readonly Family[] = [turns, users, interactions, roster, tasks, progress];

type AnyHandler = (s: TranscriptState, payload: unknown, e: JournalEvent, o: OpsOut) => void;

function handlers(families: readonly Family[]): Map<string, AnyHandler[]> {
  const out = new Map<string, AnyHandler[]>();
  for (const family of families) {
    for (const [type, handler] of Object.entries(family) as Array<[string, AnyHandler]>) out.set(type, [...(out.get(type) ?? []), handler]);
  }
  return out;
}

const HANDLERS = handlers(FAMILIES);
/** What the live folds need (GET /transcript, the ops): the records, the roster and the compaction count. */
const LIVE_HANDLERS = handlers([roster, progress, records, recordsAgent, recordsNotices]);

/**
 * The transcript of a session (docs/transcript.md): per agent its turns, user messages, interactions, todos;
 * the roster and the tasks. A pure fold of the session's stream, never the engine's memory.
 */
export const transcriptReducer: StreamReducer<TranscriptState> = {
  name: 'transcript',
  version: 5,
  init: newTranscriptState,
  apply(state, event) {
    const hs = HANDLERS.get(event.type);
    if (hs) for (const h of hs) h(state, event.payload, event, NO_OPS);
  },
};

/**
 * The same fold restricted to the families GET /transcript and the transcript channel read (records, roster,
 * compactions): the live folds (projections/transcript/live/) do not hold the messages a second time. A fold of
 * the journal drops the ops; applyLive returns them.
 */
export const liveTranscriptReducer: StreamReducer<TranscriptState> = {
  name: 'transcript-live',
  version: 5,
  init: newTranscriptState,
  apply(state, event) {
    const hs = LIVE_HANDLERS.get(event.type);
    if (hs) for (const h of hs) h(state, event.payload, event, NO_OPS);
  },
};

/** Applies one committed event to a live fold; returns the ops it made (spec/clients.md C2), in order. */
export function applyLive(state: TranscriptState, event: JournalEvent): EmittedOp[] {
  const hs = LIVE_HANDLERS.get(event.type);
  if (!hs) return [];
  const o = new OpList();
  for (const h of hs) h(state, event.payload, event, o);
  return o.ops;
}
