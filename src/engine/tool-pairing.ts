import type { ModelMessage, ToolResultPart, ToolUsePart } from '../providers/wire/types.ts';

/**
 * The providers' rule for a history (OpenAI and Anthropic refuse a request that breaks it with a 400):
 * every tool call of an assistant message is answered by exactly one result, in the message right after
 * it, and no result answers a call that is not there. The engine keeps the rule as it writes the
 * history (runTools answers every call, even unstarted ones; a restart answers the calls a crash left
 * open, src/engine/open-calls.ts); this is the last check before each model request.
 */

/** What the model reads for a call that never got a result. */
export const INTERRUPTED_RESULT = '[interrupted] This tool call has no result: it was stopped (the turn was aborted or the daemon stopped) before it finished. '
  + 'Its effects, if any, are unknown: check before relying on them.';

/**
 * The history with each assistant's tool calls followed by one tool message holding exactly one result per
 * call, in call order: a missing result is `INTERRUPTED_RESULT` (an error); a second result for a call is
 * dropped; a result for no call of the preceding assistant message (an orphan) is dropped; user messages
 * found between the calls and their results (a note slipped in) move after the results. A tool call id
 * used twice keeps its first call only. Returns `messages` itself when nothing needed a change.
 */
export function repairToolPairing(messages: readonly ModelMessage[]): ModelMessage[] {
  if (isPaired(messages)) return messages as ModelMessage[];
  const out: ModelMessage[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < messages.length; ) {
    const m = messages[i]!;
    i++;
    if (m.role === 'tool') continue; // not right after a call: an orphan
    if (m.role === 'user') {
      out.push(m);
      continue;
    }
    const calls = uniqueCalls(m.content, seen);
    const content = m.content.filter((p) => p.type !== 'tool_use' || calls.includes(p));
    if (content.length) out.push(content.length === m.content.length ? m : { role: 'assistant', content });
    if (!calls.length) continue;
    const results = new Map<string, ToolResultPart>();
    const others: ModelMessage[] = [];
    for (; i < messages.length && messages[i]!.role !== 'assistant'; i++) {
      const next = messages[i]!;
      if (next.role !== 'tool') others.push(next);
      else for (const r of next.content) if (calls.some((c) => c.id === r.tool_use_id) && !results.has(r.tool_use_id)) results.set(r.tool_use_id, r);
    }
    out.push({ role: 'tool', content: calls.map((c) => results.get(c.id) ?? interruptedResult(c)) });
    out.push(...others);
  }
  return out;
}

/** The result the model reads for `call` when it has none. */
export function interruptedResult(call: Pick<ToolUsePart, 'id' | 'name'>): ToolResultPart {
  return { type: 'tool_result', tool_use_id: call.id, name: call.name, content: INTERRUPTED_RESULT, is_error: true };
}

/** The tool calls of an assistant message, each id once across the history (`seen` carries the ids used before). */
function uniqueCalls(content: ModelMessage['content'], seen: Set<string>): ToolUsePart[] {
  const calls: ToolUsePart[] = [];
  for (const p of content) {
    if (p.type !== 'tool_use' || seen.has(p.id)) continue;
    seen.add(p.id);
    calls.push(p);
  }
  return calls;
}

/** Whether the history already keeps the rule (the common case: no copy is made). */
function isPaired(messages: readonly ModelMessage[]): boolean {
  const seen = new Set<string>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'tool') return false; // every tool message is consumed right after its assistant message below
    if (m.role !== 'assistant') continue;
    const ids = m.content.flatMap((p) => (p.type === 'tool_use' ? [p.id] : []));
    if (!ids.length) continue;
    for (const id of ids) {
      if (seen.has(id)) return false;
      seen.add(id);
    }
    const next = messages[i + 1];
    if (next?.role !== 'tool' || next.content.length !== ids.length) return false;
    if (next.content.some((r, k) => r.tool_use_id !== ids[k])) return false;
    i++;
  }
  return true;
}
