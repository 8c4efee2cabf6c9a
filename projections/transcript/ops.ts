import type { Journal } from '../../journal/journal.ts';
import { agentIdOf } from './state.ts';

/** How far back op batches reach: the last OPS_WINDOW events of the stream (as WS replay). */
export const OPS_WINDOW = 1000;

export interface OpsResult {
  agent_id: string;
  batches: Array<{ seq: number; ops: Array<{ type: string; payload: unknown }> }>;
  latest_seq: number;
  complete: boolean;
}

/**
 * The agent's durable events after since_seq, one batch per journal seq, oldest first (GET /transcript/ops,
 * the `subscribe_v2` catch-up). Incomplete (no batches) when the session is not live (its runtime is not in
 * memory: no op watermark) or since_seq is behind the window.
 */
export async function readOps(journal: Journal, sessionId: string, agentId: string, sinceSeq: number, live: boolean): Promise<OpsResult> {
  const head = journal.headSeq(sessionId);
  const oldest = Math.max(1, head - OPS_WINDOW + 1);
  const base = { agent_id: agentId, latest_seq: head };
  if (!live || sinceSeq + 1 < oldest) return { ...base, batches: [], complete: false };
  const events = sinceSeq >= head ? [] : await journal.readRange(sessionId, sinceSeq + 1, head, OPS_WINDOW);
  const batches = events
    .filter((e) => agentIdOf(e.payload) === agentId)
    .map((e) => ({ seq: e.seq, ops: [{ type: e.type, payload: e.payload }] }));
  return { ...base, batches, complete: true };
}
