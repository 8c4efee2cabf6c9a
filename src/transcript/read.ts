import type { Journal } from '../../journal/journal.ts';
import type { AppContext } from '../app/context.ts';
import { foldEvent } from './fold.ts';
import { newTranscriptState, type TranscriptState } from './state.ts';

const PAGE = 1000;
/** How far back op batches reach: the last OPS_WINDOW events of the stream (as WS replay). */
export const OPS_WINDOW = 1000;

/** Folds the session's stream, read once in pages of PAGE events (never the runtime); `seq` = the last event folded. */
export async function foldTranscript(journal: Journal, sessionId: string): Promise<{ state: TranscriptState; seq: number }> {
  const state = newTranscriptState();
  return { state, seq: await foldFrom(journal, sessionId, state, 0) };
}

/** Folds the events after `seq` into `state`; returns the seq of the last event folded. */
export async function foldFrom(journal: Journal, sessionId: string, state: TranscriptState, seq: number): Promise<number> {
  for (;;) {
    const batch = await journal.readRange(sessionId, seq + 1, undefined, PAGE);
    for (const e of batch) foldEvent(state, e);
    if (batch.length) seq = batch[batch.length - 1]!.seq;
    if (batch.length < PAGE) return seq;
  }
}

/** A live session has its runtime in memory; only then is there an op watermark. */
export function isLive(app: AppContext, sessionId: string): boolean {
  return app.engine.get(sessionId) !== undefined;
}

export interface OpsResult {
  agent_id: string;
  batches: Array<{ seq: number; ops: Array<{ type: string; payload: unknown }> }>;
  latest_seq: number;
  complete: boolean;
}

/**
 * The agent's durable events after since_seq, one batch per journal seq, oldest first.
 * Incomplete (no batches) when the session is cold or since_seq is behind the window.
 */
export async function readOps(app: AppContext, sessionId: string, agentId: string, sinceSeq: number): Promise<OpsResult> {
  const head = app.journal.headSeq(sessionId);
  const oldest = Math.max(1, head - OPS_WINDOW + 1);
  const base = { agent_id: agentId, latest_seq: head };
  if (!isLive(app, sessionId) || sinceSeq + 1 < oldest) return { ...base, batches: [], complete: false };
  const events = sinceSeq >= head ? [] : await app.journal.readRange(sessionId, sinceSeq + 1, head, OPS_WINDOW);
  const batches = events
    .filter((e) => ((e.payload as { agent_id?: string } | null)?.agent_id ?? 'main') === agentId)
    .map((e) => ({ seq: e.seq, ops: [{ type: e.type, payload: e.payload }] }));
  return { ...base, batches, complete: true };
}
