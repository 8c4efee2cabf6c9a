import type { NewStreamEvent } from '../../protocol/events/registry.ts';
import type { Message, TurnEndedPayload, TurnStartedPayload } from '../../protocol/events/turns.ts';
import { ApiError } from '../../protocol/errors.ts';
import type { ModelClient } from '../providers/wire/types.ts';
import { agentSettings } from '../sessions/agent-settings.ts';
import { contextLimit } from '../sessions/info.ts';
import { clientFor, type ResolvedModel } from './model-resolve.ts';
import { interruptedToolMessage, unansweredCalls } from './open-calls.ts';
import type { PromptRecord } from './prompt-state.ts';
import type { RuntimeDeps, TurnPlan } from './runtime-types.ts';

// The edges of one turn of a session runtime (runtime.ts): what it asks before its first request (hooks, the model
// client), the settings it starts with, and the end written for a turn that threw.

/** Where a turn runs: the session, the agent, the turn. */
export interface TurnSite {
  sessionId: string;
  agentId: string;
  turnId: string;
}

const NO_USAGE = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0 };

export function hookSite(deps: Pick<RuntimeDeps, 'sessions'>, at: TurnSite) {
  return { sessionId: at.sessionId, agentId: at.agentId, turnId: at.turnId, cwd: deps.sessions.get(at.sessionId)?.cwd ?? process.cwd() };
}

/** UserPromptSubmit hooks: a block fails the turn before any model request, with the hook's reason. */
export async function promptHooks(
  deps: Pick<RuntimeDeps, 'hooks' | 'sessions'>, at: TurnSite, prompt: PromptRecord, signal: AbortSignal,
): Promise<{ kind: string; message: string } | undefined> {
  if (!deps.hooks) return undefined;
  const text = prompt.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
  const runs = await deps.hooks.run('UserPromptSubmit', hookSite(deps, at), { prompt: text, prompt_id: prompt.prompt_id }, signal);
  const b = runs.find((r) => r.decision === 'block');
  return b ? { kind: 'hook_blocked', message: `prompt blocked by a UserPromptSubmit hook${b.reason ? `: ${b.reason}` : ''}` } : undefined;
}

/** The model client, or the failure to report as the turn's error (credentials gone since acceptance, ...). */
export async function clientOrFailure(deps: RuntimeDeps, model: ResolvedModel): Promise<ModelClient | { kind: string; message: string }> {
  try {
    return await clientFor(deps, model, deps.clients);
  } catch (err) {
    const kind = (err as { kind?: string }).kind ?? (err instanceof ApiError ? 'auth' : 'other');
    return { kind, message: (err as Error).message };
  }
}

/** The outcome of a turn whose model client could not be had. */
export function clientFailure(error: { kind: string; message: string }) {
  return { reason: 'failed' as const, error, usage: { ...NO_USAGE }, steps: 0 };
}

export function sessionAgentSettings(deps: Pick<RuntimeDeps, 'config' | 'sessions'>, sessionId: string) {
  return agentSettings(deps.config, deps.sessions.get(sessionId)?.agent_config);
}

/** The effective settings a turn starts with, journaled on `turn.started` (transcript meta.agent / meta.modes). */
export function turnSettings(
  deps: RuntimeDeps, sessionId: string, plan: TurnPlan,
): Pick<TurnStartedPayload, 'permission_mode' | 'plan_mode' | 'swarm_mode' | 'thinking' | 'max_context_tokens'> {
  const max = contextLimit(deps, plan.model.alias);
  return {
    ...sessionAgentSettings(deps, sessionId),
    thinking: plan.thinking.enabled ? plan.thinking.effort ?? 'on' : 'off',
    ...(max !== undefined ? { max_context_tokens: max } : {}),
  };
}

/** `turn.ended` of a turn that threw: failed, with the error as an internal one. */
export function crashedTurnEnded(deps: Pick<RuntimeDeps, 'clock'>, at: TurnSite, promptId: string, err: Error): TurnEndedPayload {
  return {
    agent_id: at.agentId, turn_id: at.turnId, prompt_id: promptId, reason: 'failed',
    error: { kind: 'internal', message: err.message }, usage: { ...NO_USAGE }, steps: 0, ended_at: deps.clock.now().toISOString(),
  };
}

/**
 * A turn that threw in the middle of its tool calls: the calls of the last assistant message without a result
 * get the interrupted one (pushed onto the history now, journaled with the turn's end), so the history stays valid.
 */
export function answerOpenCalls(deps: Pick<RuntimeDeps, 'clock' | 'ids'>, at: TurnSite, history: Message[]): NewStreamEvent[] {
  let last = history.length - 1;
  while (last >= 0 && !(history[last]!.role === 'assistant' && !history[last]!.metadata?.interrupted)) last--;
  const open = last < 0 ? [] : unansweredCalls(history.slice(last));
  if (!open.length) return [];
  const message = interruptedToolMessage({ sessionId: at.sessionId, now: deps.clock.now().toISOString(), ids: deps.ids }, open);
  history.push(message);
  return [{ stream: at.sessionId, type: 'message.created', payload: { agent_id: at.agentId, turn_id: at.turnId, message } }];
}
