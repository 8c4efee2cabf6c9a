import type { JournalEvent } from '../../journal/types.ts';
import { known } from '../contract.ts';
import type { RecAgent, RecItem, RecordsState, RecTurn } from './records-state.ts';
import { DEFAULT_TURN_PAGE } from './records-view.ts';

export type { TrimmedTurns } from './records-state.ts';

// A live fold keeps the newest turns of each agent (projections/transcript/live/): the older ended turns leave its
// records, and come back from a fold of the journal (`restoreTurns`) when something needs them: a GET /transcript
// page that reaches them, or an event that names one of them (a late tool result, an undo). While they are out
// nothing changes them (every event that could is such an event), so the journal's fold holds them exactly as the
// live fold had them. A fold of the whole journal and a live fold thus answer the same (docs/transcript.md).

const ended = (t: RecTurn) => t.state !== 'running' && t.state !== 'queued';

/**
 * Drops an agent's oldest turns once it holds `keep + slack` of them, down to `keep`: the items before the oldest
 * turn kept (markers, taskrefs among the dropped turns) go with them (`items.slice(cut)`; restoreTurns puts them
 * back from the journal's fold), and the index entries that name the dropped turns. Only ended turns go, so
 * `a.steps` and `pendingUser` hold nothing of them (both are emptied at a turn's end). Returns whether any went.
 */
export function trimTurns(a: RecAgent, keep: number, slack: number): boolean {
  let count = 0;
  for (const it of a.items) if (it.kind === 'turn') count += 1;
  if (count <= keep || count < keep + slack) return false;
  let drop = count - keep;
  let cut = 0;
  const gone: RecTurn[] = [];
  for (; cut < a.items.length; cut++) {
    const it = a.items[cut]!;
    if (it.kind !== 'turn') continue;
    if (drop === 0) break;
    if (!ended(it)) return false;
    gone.push(it);
    drop -= 1;
  }
  const t = a.trimmed ?? { turns: 0, before: 0, inputTokens: 0, outputTokens: 0, cachedTokens: 0 };
  for (const turn of gone) {
    a.turns.delete(turn.turnId);
    const engine = a.engineTurn.get(turn.turnId);
    if (engine !== undefined && a.byEngineTurn.get(engine) === turn) a.byEngineTurn.delete(engine);
    a.engineTurn.delete(turn.turnId);
    a.opening.delete(turn.turnId);
    a.pendingUser.delete(turn.turnId);
    for (const st of turn.steps) {
      a.steps.delete(st.stepId);
      for (const f of st.frames) if (f.kind === 'tool' && a.tools.get(f.toolCallId)?.turn === turn) a.tools.delete(f.toolCallId);
    }
    t.turns += 1;
    t.inputTokens += turn.usage?.inputTokens ?? 0;
    t.outputTokens += turn.usage?.outputTokens ?? 0;
    t.cachedTokens += turn.usage?.cachedTokens ?? 0;
  }
  const first = a.items[cut];
  t.before = first?.kind === 'turn' ? first.ordinal : a.nextOrdinal;
  a.trimmed = t;
  a.items = a.items.slice(cut);
  return true;
}

/**
 * Puts an agent's trimmed turns back, from `cold` (the same agent in a fold of the journal up to the live fold's
 * seq): its items before the oldest turn held, and their index entries.
 */
export function restoreTurns(a: RecAgent, cold: RecAgent): void {
  const before = a.trimmed?.before;
  if (before === undefined) return;
  let cut = 0;
  for (; cut < cold.items.length; cut++) {
    const it = cold.items[cut]!;
    if (it.kind === 'turn' && it.ordinal >= before) break;
  }
  const older: RecItem[] = cold.items.slice(0, cut);
  // The older turns' entries go first in every index, as a fold of the journal inserts them (an undo lists the
  // turns it removes in the order of `turns`).
  const turns = new Map<string, RecTurn>();
  const byEngineTurn = new Map<string, RecTurn>();
  const engineTurn = new Map<string, string>();
  const opening = new Map<string, string>();
  const tools: RecAgent['tools'] = new Map();
  for (const it of older) {
    if (it.kind !== 'turn') continue;
    turns.set(it.turnId, it);
    const engine = cold.engineTurn.get(it.turnId);
    if (engine !== undefined) {
      engineTurn.set(it.turnId, engine);
      byEngineTurn.set(engine, it);
    }
    const open = cold.opening.get(it.turnId);
    if (open !== undefined) opening.set(it.turnId, open);
    for (const st of it.steps) {
      for (const f of st.frames) {
        const at = f.kind === 'tool' ? cold.tools.get(f.toolCallId) : undefined;
        if (f.kind === 'tool' && at?.turn === it) tools.set(f.toolCallId, at);
      }
    }
  }
  const join = <K, V>(first: Map<K, V>, then: Map<K, V>) => {
    for (const [k, v] of then) if (!first.has(k)) first.set(k, v);
    return first;
  };
  a.turns = join(turns, a.turns);
  a.byEngineTurn = join(byEngineTurn, a.byEngineTurn);
  a.engineTurn = join(engineTurn, a.engineTurn);
  a.opening = join(opening, a.opening);
  a.tools = join(tools, a.tools);
  a.items = [...older, ...a.items];
  a.trimmed = undefined;
}

/** Whether some agent of the records has turns out. */
export function anyTrimmed(s: RecordsState): boolean {
  for (const a of s.agents.values()) if (a.trimmed) return true;
  return false;
}

/**
 * Whether applying `e` may need turns that are out: it names a turn or a tool call the records do not hold, or it
 * is an undo (which removes turns by their opening message). A false positive costs a fold of the journal.
 */
export function touchesTrimmed(s: RecordsState, e: JournalEvent): boolean {
  const type = known(e).type;
  if (type === 'session.undone') return true;
  const p = e.payload as Record<string, unknown> | null;
  if (!p || typeof p !== 'object') return false;
  const agent = s.agents.get(typeof p.agent_id === 'string' ? p.agent_id : 'main');
  // A turn being opened names a turn no fold holds yet (subagent.started comes before its turn.started).
  if (typeof p.turn_id === 'string' && type !== 'turn.started' && type !== 'subagent.started') {
    if (agent?.trimmed && !agent.byEngineTurn.has(p.turn_id)) return true;
    // A call of a turn held is held with it (a tool frame lives in its turn's steps).
    if (agent?.byEngineTurn.has(p.turn_id)) return false;
  }
  const calls: string[] = [];
  if (typeof p.tool_call_id === 'string') calls.push(p.tool_call_id);
  // A task started patches its parent call's frame; a task's later events (task.terminated ...) do not touch it.
  const task = p.task as { parent_tool_call_id?: unknown } | undefined;
  if (type === 'task.started' && typeof task?.parent_tool_call_id === 'string') calls.push(task.parent_tool_call_id);
  // A subagent spawned patches its parent call's frame (agentRefs; records.ts 'subagent.spawned').
  if (type === 'subagent.spawned' && typeof p.parent_tool_call_id === 'string') calls.push(p.parent_tool_call_id);
  // An interaction resolved: the tool frame of its call gets the answer (records.ts resolveInteraction).
  for (const [k, v] of Object.entries(p)) {
    if (typeof v !== 'string' || !k.endsWith('_id')) continue;
    for (const a of s.agents.values()) {
      const it = a.interactions.get(v);
      if (it?.toolCallId) calls.push(it.toolCallId);
    }
  }
  for (const id of calls) {
    let held = false;
    for (const a of s.agents.values()) if (a.tools.has(id)) held = true;
    if (!held) return true;
  }
  return false;
}

/**
 * Whether a GET /transcript page (records-view.ts itemPage) of an agent reaches its trimmed turns: the newest page
 * or a `before_turn` page that would start at the oldest turn held (its `has_more` and items need the older ones),
 * or a cursor that names no turn held.
 */
export function pageReachesTrimmed(a: RecAgent | undefined, c: { before_turn?: string; after_turn?: string; page_size?: number }): boolean {
  if (!a?.trimmed) return false;
  const n = c.page_size ?? DEFAULT_TURN_PAGE;
  const turns = a.items.filter((i): i is RecTurn => i.kind === 'turn');
  const anchor = c.before_turn ?? c.after_turn;
  if (anchor === undefined) return turns.length <= n;
  const k = turns.findIndex((t) => t.turnId === anchor || t.turn_id === anchor);
  if (k < 0) return true;
  return c.before_turn !== undefined && k - n <= 0;
}
