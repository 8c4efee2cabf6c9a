import type { PlanRec, UserMessageRec } from '../contract.ts';
import { isActivationText, newAgentState, type AgentState, type TranscriptState, type UserEntry } from './state.ts';

// Read models over the folded state: pure functions, no journal or engine access.

export function agentOf(s: TranscriptState, agentId: string): AgentState {
  return s.agents.get(agentId) ?? newAgentState();
}

/** Text of a prompt without the skill bodies the server prepended. */
function promptText(e: UserEntry): string {
  return e.content.flatMap((p) => (p.type === 'text' && !isActivationText(p.text) ? [p.text] : [])).join('\n');
}

/** A user message's `origin`: a prompt that ran a plugin command or activated a skill says so. */
function originOf(s: TranscriptState, e: UserEntry): UserMessageRec['origin'] {
  if (e.prompt_id && s.commandPrompts.has(e.prompt_id)) return 'plugin_command';
  return e.prompt_id && s.skillPrompts.has(e.prompt_id) ? 'skill' : e.origin;
}

function userMessage(s: TranscriptState, a: AgentState, e: UserEntry, i: number): UserMessageRec {
  const turn = e.turn_id ? a.byTurn.get(e.turn_id) : undefined;
  const ids = e.content.flatMap((p) => {
    const id = p.type === 'file' ? p.file_id : p.type === 'image' ? (p.source as { file_id?: string } | undefined)?.file_id : undefined;
    return id && a.attachments.has(id) ? [id] : [];
  });
  return {
    turn_id: e.turn_id, ordinal: i + 1, state: turn ? turn.state : e.state,
    origin: originOf(s, e), prompt: promptText(e),
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
