import type { PayloadOf } from '../contract.ts';
import type { LlmTiming } from '../../protocol/events/turns.ts';
import { recAgent, type RecPrompt, type RecStep, type RecTurn } from './records-state.ts';
import type { TranscriptState } from './state.ts';

// A turn's `origin` (spec/clients.md B2) and a step's `llmTiming` (B1), from what the journal says.

/**
 * The origin of the turn `turn.started` opens:
 * - a prompt of the user (POST /prompts): `user`, payload `{kind:'user', clientMetadata?, skillActivations?}`;
 * - POST skills/{name}:activate: `user`, payload `{kind:'skill_activation', trigger:'user-slash', skillName, skillArgs?}`;
 *   for a plugin command (:activate or POST /prompts `skills`) `{kind:'plugin_command', trigger:'user-slash', pluginId, commandName, commandArgs?}`;
 * - a `:btw` agent's prompt: `side`, with the same user payload;
 * - a goal continuation: `other`, payload `{kind:'goal_continuation'}`;
 * - a follow-up turn of background tasks that ended while the agent was idle: `task`, `taskId` the first task, payload
 *   `{kind:'task_notification', taskIds}`;
 * - a subagent's task prompt (no prompt.accepted, the agent spawned as a task): `other`, payload `{kind:'subagent_prompt'}`;
 * - a main (or `:btw`) agent's turn whose prompt the journal does not record: `user` (`side`), without payload.
 * Hooks, compactions and cron never start a turn here, so `hook`, `compaction` and `cron` do not occur.
 */
export function turnOrigin(st: TranscriptState, p: PayloadOf<'turn.started'>): RecTurn['origin'] {
  const agentId = p.agent_id ?? 'main';
  const a = recAgent(st.rec, agentId);
  const prompt = a.prompts.get(p.prompt_id);
  const info = a.origins.get(p.prompt_id);
  a.origins.delete(p.prompt_id);
  if (!prompt) {
    // No prompt.accepted: a subagent's task prompt (its spawn starts the turn), else a prompt of a journal that
    // did not record it (every prompt of the main or a `:btw` agent goes through the intake, which journals one).
    const kind = st.roster.get(agentId)?.kind;
    if (kind === 'task') return { kind: 'other', payload: { kind: 'subagent_prompt' } };
    return { kind: kind === 'btw' ? 'side' : 'user' };
  }
  if (info?.source === 'goal') return { kind: 'other', payload: { kind: 'goal_continuation' } };
  if (info?.source === 'task') {
    const taskIds = info.taskIds ?? [];
    return { kind: 'task', ...(taskIds[0] ? { taskId: taskIds[0] } : {}), payload: { kind: 'task_notification', taskIds } };
  }
  const clientMetadata = prompt.clientMetadata ? { clientMetadata: prompt.clientMetadata } : {};
  const skills = info?.skills ?? [];
  const payload = info?.command
    ? { kind: 'plugin_command', trigger: 'user-slash', ...info.command, ...clientMetadata }
    : info?.source === 'skill' && skills.length
      ? { kind: 'skill_activation', trigger: 'user-slash', ...skills[0], ...clientMetadata }
      : { kind: 'user', ...clientMetadata, ...(skills.length ? { skillActivations: skills } : {}) };
  return { kind: st.roster.get(agentId)?.kind === 'btw' ? 'side' : 'user', payload };
}

/** `turn.step.completed` `llm_timing` as the step's `llmTiming`. */
export function llmTiming(t: LlmTiming): NonNullable<RecStep['llmTiming']> {
  const out: Record<string, number> = {};
  if (t.first_token_latency_ms !== undefined) out.llmFirstTokenLatencyMs = t.first_token_latency_ms;
  if (t.stream_duration_ms !== undefined) out.llmStreamDurationMs = t.stream_duration_ms;
  if (t.request_build_ms !== undefined) out.llmRequestBuildMs = t.request_build_ms;
  if (t.client_consume_ms !== undefined) out.llmClientConsumeMs = t.client_consume_ms;
  return out;
}

/** The `origin` of a steered prompt's user frame (B3): the user payload of B2. */
export function steerOrigin(prompt: RecPrompt): Record<string, unknown> {
  return { kind: 'user', ...(prompt.clientMetadata ? { clientMetadata: prompt.clientMetadata } : {}) };
}

type Goal = NonNullable<PayloadOf<'goal.updated'>['goal']>;

/** `meta.goal` (B5): the goal snapshot plus `budgetUsed` / `budgetLimit` of its token budget, else its turn budget. */
export function goalMeta(g: Goal): Goal & { budgetUsed?: number; budgetLimit?: number } {
  const b = g.budget.tokens ? { used: g.tokensUsed, limit: g.budget.tokens.limit } : g.budget.turns ? { used: g.turnsUsed, limit: g.budget.turns.limit } : undefined;
  return { ...g, ...(b ? { budgetUsed: b.used, budgetLimit: b.limit } : {}) };
}
