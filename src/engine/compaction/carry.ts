import type { Message } from '../../../protocol/events/turns.ts';
import { cutMiddle } from './plan.ts';

/**
 * State the agent works from that a summary must not lose: the todo list (the last TodoWrite) and the
 * last plan presented with ExitPlanMode. Carried word for word after the summary text, and in the
 * summary message's `metadata.compaction.carried`, so the next compaction reads it from there.
 * (Plan mode itself is session state: its reminder is added to every request's system prompt.)
 */
export interface Carried {
  todos?: Array<{ content: string; status: string }>;
  plan?: string;
}

const PLAN_MAX_CHARS = 8000;

/** The state as of the end of `messages` (oldest first): later calls replace earlier ones. */
export function carriedState(messages: readonly Message[]): Carried {
  let out: Carried = {};
  const failed = new Set<string>();
  for (const m of messages) for (const p of m.content) if (p.type === 'tool_result' && p.is_error) failed.add(p.tool_use_id);
  for (const m of messages) {
    const prior = (m.metadata?.compaction as { carried?: Carried } | undefined)?.carried;
    if (prior) out = { ...prior };
    for (const p of m.content) {
      if (p.type !== 'tool_use' || failed.has(p.id)) continue;
      const input = p.input as { todos?: unknown; plan?: unknown } | undefined;
      if (p.name === 'TodoWrite' && Array.isArray(input?.todos)) out.todos = input.todos.flatMap(todoOf);
      else if (p.name === 'ExitPlanMode' && typeof input?.plan === 'string') out.plan = cutMiddle(input.plan, PLAN_MAX_CHARS);
    }
  }
  if (out.todos && !out.todos.length) delete out.todos;
  return out;
}

function todoOf(t: unknown): Array<{ content: string; status: string }> {
  const o = t as { content?: unknown; status?: unknown };
  return typeof o?.content === 'string' ? [{ content: o.content, status: typeof o.status === 'string' ? o.status : 'pending' }] : [];
}

/** The carried state as text appended to the summary (empty when there is none). */
export function carriedText(c: Carried): string {
  const parts: string[] = [];
  if (c.todos?.length) {
    parts.push(`Your todo list (as you last wrote it with TodoWrite; keep it current):\n${c.todos.map((t) => `- [${t.status}] ${t.content}`).join('\n')}`);
  }
  if (c.plan) parts.push(`The plan you last presented with ExitPlanMode:\n${c.plan}`);
  return parts.join('\n\n');
}

export const hasCarried = (c: Carried): boolean => Boolean(c.todos?.length || c.plan);
