import type { PayloadOf } from './contract.ts';

/**
 * What a `session.undone` removes (docs/compaction-undo.md), read here for every model that replays it: the
 * runtime history and the next undo's `last_prompt` (src/engine/), the messages, session index, usage and
 * transcript projections. An undo removes messages by id (a fork's copy of the event lands at other seqs);
 * whatever a removed message is or opens (a turn, a user message) goes with it.
 */
export interface Undo {
  /** The agent whose last turns were removed (`main`: only the main agent is undone). */
  agentId: string;
  /** Every removed message: each undone turn's prompt and everything after it. */
  messageIds: ReadonlySet<string>;
  /** The session's last prompt once the turns are gone; null when none is left. */
  lastPrompt: string | null;
  /** Characters of the context left (the token estimate's basis). */
  contextChars: number;
}

export function undoOf(p: PayloadOf<'session.undone'>): Undo {
  return { agentId: p.agent_id ?? 'main', messageIds: new Set(p.message_ids ?? []), lastPrompt: p.last_prompt, contextChars: p.context_chars };
}

/** What an undo leaves of a list: the items whose message (`messageOf`: the message an item is, or opens) it did not remove. */
export function survivors<T>(items: readonly T[], undo: Undo, messageOf: (item: T) => string | undefined): T[] {
  return items.filter((item) => {
    const id = messageOf(item);
    return id === undefined || !undo.messageIds.has(id);
  });
}
