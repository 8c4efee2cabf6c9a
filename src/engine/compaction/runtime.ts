import type { UsageProjection } from '../../../projections/usage/session-usage.ts';
import type { ConfigService } from '../../config/service.ts';
import { contextLimit } from '../../sessions/info.ts';
import { compactable, contextNow, type CompactionDeps, type CompactionInput } from './compact.ts';
import type { Message } from '../../../protocol/events/turns.ts';
import type { ToolExecutor } from '../tools.ts';
import type { LoopLimits } from '../turn.ts';

/** A compaction's input from the runtime's deps and the current config (loop_control). */
export function compactionInput(
  deps: CompactionDeps & { config: ConfigService; tools: ToolExecutor; limits: () => LoopLimits }, sessionId: string, history: Message[],
  run: Pick<CompactionInput, 'client' | 'trigger' | 'keep' | 'signal' | 'instruction'>,
): CompactionInput {
  const c = deps.config.current().loop_control;
  const limits = deps.limits();
  return {
    deps, sessionId, history, ...run, tools: deps.tools.specs(sessionId, [], { agentId: 'main' }),
    maxAttempts: Math.max(1, c.compaction_max_attempts), retryBaseMs: limits.retryBaseMs, idleTimeoutMs: limits.idleTimeoutMs ?? 0,
  };
}

/**
 * Part B loop_control: before a step, compact when `reserved_context_size` is set and the window
 * left (the model's context size minus the current context) is below it. Before the first step
 * the turn's own prompt is kept verbatim after the summary, so it is not counted as compactable.
 */
export function needsAutoCompaction(deps: { config: ConfigService; usage: UsageProjection }, sessionId: string, history: readonly Message[], alias: string, step: number): boolean {
  const reserved = deps.config.current().loop_control.reserved_context_size;
  const limit = contextLimit(deps, alias);
  if (!reserved || !limit) return false;
  return limit - contextNow(deps, sessionId, history) < reserved && compactable(history, step === 1 ? 1 : 0);
}
