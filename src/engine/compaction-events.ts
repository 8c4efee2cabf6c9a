import type { Usage } from './events.ts';

/**
 * Journaled events of context compaction and undo (docs/compaction-undo.md). They
 * go on the session stream, carry `agent_id` (always `main` today), and are what
 * the runtime history, the messages projection, the session index and the usage
 * projection replay: nothing about a compaction or an undo lives only in memory.
 */
export const CompactionEvents = {
  started: 'compaction.started',
  completed: 'compaction.completed',
  failed: 'compaction.failed',
  /** The last turns of an agent were removed (`:undo`). */
  undone: 'session.undone',
} as const;

export type CompactionTrigger = 'manual' | 'auto';

export interface CompactionStartedPayload {
  compaction_id: string;
  agent_id: string;
  trigger: CompactionTrigger;
  instruction?: string;
}

export interface CompactionCompletedPayload {
  compaction_id: string;
  agent_id: string;
  /** The user-role summary message, journaled right after this event with `metadata.compaction`. */
  summary_message_id: string;
  /** How many leading context messages the summary replaces (messages after them stay). */
  replaced_messages: number;
  tokens_before: number;
  tokens_after: number;
  /** Tokens of the summary request itself (summed into the session usage). */
  usage: Usage;
}

export interface CompactionFailedPayload {
  compaction_id: string;
  agent_id: string;
  error: { kind: string; message: string; status?: number };
  attempts: number;
}

export interface SessionUndonePayload {
  agent_id: string;
  /** Turns removed. */
  count: number;
  /** Every removed message, oldest first (a suffix of the agent's context). */
  message_ids: string[];
  /** Text of the latest prompt still in the transcript; null when none is left. */
  last_prompt: string | null;
  /** Characters of the remaining context (the usage projection's estimate restarts from it). */
  context_chars: number;
}
