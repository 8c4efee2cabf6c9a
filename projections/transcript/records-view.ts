import { newRecAgent, type RecAgent, type RecItem } from './records-state.ts';
import type { TranscriptState } from './state.ts';

// GET /transcript and the transcript.reset snapshot over the records (spec/clients.md B7).

export const DEFAULT_TURN_PAGE = 20;

export interface TurnCursor { before_turn?: string; after_turn?: string; page_size?: number }

/** Index in `items` of each turn, oldest first. */
function turnIndexes(items: RecItem[]): number[] {
  const out: number[] = [];
  items.forEach((it, i) => it.kind === 'turn' && out.push(i));
  return out;
}

/** A turn by `t<ordinal>` or by the engine's turn id. */
function findTurn(items: RecItem[], turns: number[], id: string): number {
  return turns.findIndex((i) => {
    const t = items[i]!;
    return t.kind === 'turn' && (t.turnId === id || t.turn_id === id);
  });
}

/**
 * Whole turns with the markers and taskrefs that follow each, oldest first. Items before the first turn go
 * with the page that holds it. Undefined when the cursor names no turn of the agent.
 */
export function itemPage(a: RecAgent, c: TurnCursor): { items: RecItem[]; has_more: boolean } | undefined {
  const n = c.page_size ?? DEFAULT_TURN_PAGE;
  const { items } = a;
  const turns = turnIndexes(items);
  const slice = (from: number, to: number) => {
    const start = from <= 0 ? 0 : turns[from]!;
    const end = to >= turns.length ? items.length : turns[to]!;
    return items.slice(start, end);
  };
  const anchor = c.before_turn ?? c.after_turn;
  if (anchor === undefined) {
    const from = Math.max(0, turns.length - n);
    return { items: slice(from, turns.length), has_more: from > 0 };
  }
  const k = findTurn(items, turns, anchor);
  if (k < 0) return undefined;
  if (c.before_turn !== undefined) {
    const from = Math.max(0, k - n);
    return { items: k === 0 ? [] : slice(from, k), has_more: from > 0 };
  }
  const to = Math.min(turns.length, k + 1 + n);
  return { items: k + 1 >= turns.length ? [] : slice(k + 1, to), has_more: to < turns.length };
}

export function recAgentOf(s: TranscriptState, agentId: string): RecAgent {
  return s.rec.agents.get(agentId) ?? newRecAgent();
}

/** The roster: our snake-case record plus the client's camelCase keys. */
export function rosterB(s: TranscriptState) {
  return [...s.roster.values()].map((r) => {
    const items = s.rec.agents.get(r.agent_id)?.items ?? [];
    let running = false;
    for (let i = items.length - 1; i >= 0; i--) {
      const it = items[i]!;
      if (it.kind !== 'turn') continue;
      running = it.state === 'running';
      break;
    }
    return {
      ...r, ...(running ? { state: 'running' as const } : {}),
      agentId: r.agent_id, type: r.kind === 'main' ? 'main' as const : r.kind === 'task' ? 'sub' as const : 'independent' as const,
      ...(r.parent_agent_id ? { parentAgentId: r.parent_agent_id } : {}), ...(r.description ? { label: r.description } : {}),
      ...(r.created_at ? { createdAt: r.created_at } : {}), ...(r.disposed_at ? { disposedAt: r.disposed_at } : {}),
    };
  });
}

/** The unpaginated state of an agent (every container but `items`). */
export function agentState(s: TranscriptState, agentId: string) {
  const a = recAgentOf(s, agentId);
  const interactions = [...a.interactions.values()];
  return {
    tasks: [...s.rec.tasks.values()], interactions, attachments: [...a.attachments.values()], todos: [...a.todos.values()],
    prompts: [...a.prompts.values()], meta: { ...a.meta }, pending_interactions: interactions.filter((x) => x.state === 'pending').map((x) => x.interactionId),
  };
}

/** GET /transcript data; undefined when the cursor names no turn of the agent. */
export function recordsPage(s: TranscriptState, q: TurnCursor & { agent_id: string }, seq: number | undefined) {
  const page = itemPage(recAgentOf(s, q.agent_id), q);
  if (!page) return undefined;
  return { agent_id: q.agent_id, ...page, ...agentState(s, q.agent_id), agents: rosterB(s), ...(seq !== undefined ? { seq } : {}) };
}

/** The `transcript.reset` snapshot: the newest page and the agent's state. */
export function resetSnapshot(s: TranscriptState, agentId: string) {
  const page = itemPage(recAgentOf(s, agentId), {})!;
  return { snapshot: { items: page.items, ...agentState(s, agentId), hasMoreOlder: page.has_more }, has_more_older: page.has_more };
}
