import type { AgentRec, InteractionRec, PlanRec, TurnRec, UserMessageRec } from '../contract.ts';
import { newAgentState, type AgentState, type TranscriptState, type UserEntry } from './state.ts';

// Read models over the folded state: pure functions, no journal or engine access.

export const DEFAULT_TURN_PAGE = 20;

export interface TurnCursor { before_turn?: string; after_turn?: string; page_size?: number }

/** Page of turns, oldest first; undefined when the cursor names no turn of the agent. */
export function turnPage(a: AgentState, c: TurnCursor): { items: TurnRec[]; has_more: boolean } | undefined {
  const n = c.page_size ?? DEFAULT_TURN_PAGE;
  const all = a.turns;
  const anchor = c.before_turn ?? c.after_turn;
  if (anchor === undefined) return { items: all.slice(Math.max(0, all.length - n)), has_more: all.length > n };
  const i = all.findIndex((t) => t.turn_id === anchor);
  if (i < 0) return undefined;
  if (c.before_turn !== undefined) return { items: all.slice(Math.max(0, i - n), i), has_more: i - n > 0 };
  return { items: all.slice(i + 1, i + 1 + n), has_more: i + 1 + n < all.length };
}

export function agentOf(s: TranscriptState, agentId: string): AgentState {
  return s.agents.get(agentId) ?? newAgentState();
}

/** The roster: main and every spawned agent; `running` while a turn of the agent is open. */
export function roster(s: TranscriptState): AgentRec[] {
  return [...s.roster.values()].map((r) => (s.agents.get(r.agent_id)?.current ? { ...r, state: 'running' as const } : r));
}

export function meta(a: AgentState) {
  const usage = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0 };
  for (const t of a.turns) for (const k of Object.keys(usage) as Array<keyof typeof usage>) usage[k] += t.usage?.[k] ?? 0;
  const last = a.turns.at(-1);
  return {
    turns: a.turns.length, usage, compactions: a.compactions,
    ...(last?.model ? { model: last.model } : {}), ...(last?.reason ? { last_turn_reason: last.reason } : {}),
  };
}

export function interactions(a: AgentState): InteractionRec[] {
  return [...a.interactions.values()];
}

/** Text of a prompt without the skill bodies the server prepended. */
function promptText(e: UserEntry): string {
  return e.content.flatMap((p) => (p.type === 'text' && !p.text.startsWith('<skill name=') ? [p.text] : [])).join('\n');
}

function userMessage(s: TranscriptState, a: AgentState, e: UserEntry, i: number): UserMessageRec {
  const turn = e.turn_id ? a.byTurn.get(e.turn_id) : undefined;
  const ids = e.content.flatMap((p) => {
    const id = p.type === 'file' ? p.file_id : p.type === 'image' ? (p.source as { file_id?: string } | undefined)?.file_id : undefined;
    return id && a.attachments.has(id) ? [id] : [];
  });
  return {
    turn_id: e.turn_id, ordinal: i + 1, state: turn ? turn.state : e.state,
    origin: e.prompt_id && s.skillPrompts.has(e.prompt_id) ? 'skill' : e.origin, prompt: promptText(e),
    ...(e.prompt_id ? { prompt_id: e.prompt_id } : {}), ...(ids.length ? { attachment_ids: ids } : {}),
    ...(e.started_at ? { started_at: e.started_at } : {}),
  };
}

export function userMessages(s: TranscriptState, agentId: string) {
  const a = agentOf(s, agentId);
  return { agent_id: agentId, messages: a.users.map((e, i) => userMessage(s, a, e, i)), attachments: [...a.attachments.values()] };
}

/** Plans of ExitPlanMode calls: from the review (interaction), else from the call's own input (output). */
export function plans(a: AgentState): PlanRec[] {
  const out: PlanRec[] = [];
  for (const [id, call] of a.calls) {
    if (call.tool_name !== 'ExitPlanMode') continue;
    const review = [...a.interactions.values()].find((x) => x.kind === 'approval' && x.tool_call_id === id);
    const req = review?.request as { plan?: string; options?: PlanRec['options']; turn_id?: string } | undefined;
    const plan = req?.plan ?? (call.input as { plan?: unknown } | null)?.plan;
    if (typeof plan !== 'string') continue;
    const base = { tool_call_id: id, turn_id: req?.turn_id ?? call.turn_id ?? '', plan };
    if (!review) { out.push({ ...base, source: 'output' }); continue; }
    const res = review.resolution as { selected_label?: string; feedback?: string } | undefined;
    out.push({
      ...base, source: 'interaction', ...(req?.options ? { options: req.options } : {}),
      review: {
        state: review.state as 'pending' | 'approved' | 'rejected' | 'cancelled',
        ...(res?.selected_label ? { selected_option: res.selected_label } : {}), ...(res?.feedback ? { feedback: res.feedback } : {}),
      },
    });
  }
  return out;
}
