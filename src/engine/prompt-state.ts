import type { ContentPart, PromptAcceptedPayload } from '../../protocol/events/turns.ts';

export type PromptStatus = 'queued' | 'running' | 'completed' | 'aborted';

/** A prompt known to a runtime: queued, running, or finished (kept for `prompt_id` idempotency). */
export interface PromptRecord {
  prompt_id: string;
  user_message_id: string;
  content: ContentPart[];
  created_at: string;
  status: PromptStatus;
  overrides: PromptAcceptedPayload['overrides'];
  /** Settles once `prompt.accepted` is on disk; a turn never starts before it. */
  accepted?: Promise<void>;
  /** The metadata of the prompt's user message (a task follow-up's `task_notification`). */
  metadata?: Record<string, unknown>;
}

/** Core "Prompt object". */
export function toPromptObject(p: PromptRecord, status: 'running' | 'queued' = p.status === 'queued' ? 'queued' : 'running') {
  return { prompt_id: p.prompt_id, user_message_id: p.user_message_id, status, content: p.content, created_at: p.created_at };
}

/** Joined text parts: the session's `last_prompt`. */
export function promptText(content: ContentPart[]): string {
  return content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
}

/** A prompt read back from its `prompt.accepted` event (a runtime loaded from the journal). */
export function finishedPrompt(p: PromptAcceptedPayload, status: PromptStatus = 'completed'): PromptRecord {
  return { prompt_id: p.prompt_id, user_message_id: p.user_message_id, content: p.content, created_at: p.created_at, status, overrides: p.overrides };
}
