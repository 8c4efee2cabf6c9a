import type { ConfigService } from '../../config/service.ts';
import type { ModelClient } from '../../providers/wire/types.ts';
import { contextLimit } from '../../sessions/info.ts';
import { effectiveModel } from '../../providers/models/items.ts';
import type { Message } from '../../../protocol/events/turns.ts';
import type { CompactionTrigger } from '../../../protocol/events/compaction.ts';
import type { LoopLimits, TurnContext } from '../turn.ts';
import { fits, historyTokens, keepTokens, reserveFor, type WindowBudget } from './budget.ts';
import { compact, type CompactionDeps } from './compact.ts';
import type { KeepPolicy } from './plan.ts';

/** The window an agent's requests must fit with model `alias`, and the reserve kept free; undefined when the model has no size. */
export function budgetFor(config: ConfigService, alias: string): WindowBudget | undefined {
  const window = contextLimit({ config }, alias);
  if (!window) return undefined;
  const rec = config.current().models[alias];
  const maxOutput = Number(rec ? effectiveModel(rec).max_output_size : undefined);
  return { window, reserve: reserveFor(window, config.current().loop_control.reserved_context_size, Number.isFinite(maxOutput) ? maxOutput : undefined) };
}

/** A request refused as too long sets a ceiling below its size (what the provider accepts is less than the estimate said). */
const CEILING_SHARE = 0.95;

/**
 * An agent's context size: the estimate of the next request, or, when larger, the provider's count
 * of the last request plus the estimate of what the history gained since (Part B token_counting:
 * internal compaction uses both). It also remembers the size of a request the provider refused as
 * too long, for that window: a provider counting more than the estimate (its tokenizer, or the
 * output it reserves, such as Anthropic's max_tokens with a thinking budget) is then not asked again
 * with as large a request.
 */
export class ContextGauge {
  private last?: { tokens: number; at: number };
  private ceiling?: { window: number; tokens: number };

  constructor(private readonly history: readonly Message[]) {}

  /** The provider's count of the request just answered (its answer already in the history). */
  measure(tokens: number): void {
    this.last = tokens > 0 ? { tokens, at: this.history.length } : undefined;
  }

  /** The history changed under the last count (compaction, undo). */
  reset(): void {
    this.last = undefined;
  }

  /** The provider refused a request of `tokens` (estimated) on a model of `window`. */
  refused(window: number, tokens: number): void {
    const c = this.ceiling?.window === window ? Math.min(this.ceiling.tokens, tokens) : tokens;
    this.ceiling = { window, tokens: c };
  }

  /** The budget requests are held to: the model's, narrowed below a refused size on that model. */
  effective(b: WindowBudget): WindowBudget {
    if (this.ceiling?.window !== b.window) return b;
    // Never below a quarter of the window: a refusal that far below it says more of the request than of the window.
    const ceiling = Math.max(Math.floor(this.ceiling.tokens * CEILING_SHARE), Math.floor(b.window / 4));
    return { window: Math.min(b.window, ceiling + b.reserve), reserve: b.reserve };
  }

  tokens(overhead: number): number {
    const estimate = overhead + historyTokens(this.history);
    const m = this.last;
    if (!m || m.at > this.history.length) return estimate;
    return Math.max(estimate, m.tokens + historyTokens(this.history.slice(m.at)));
  }
}

export type AgentCompactionDeps = CompactionDeps & { config: ConfigService; limits: () => LoopLimits };

/** One agent's context as its compactions see it. */
export interface AgentContext {
  deps: AgentCompactionDeps;
  sessionId: string;
  agentId: string;
  history: Message[];
  gauge: ContextGauge;
  /** The agent's model window; undefined when the model declares no size (no automatic compaction then). */
  budget: WindowBudget | undefined;
  /** Tokens of the agent's requests besides the messages (system prompt, tool specs). */
  overhead(): number;
  client(): Promise<ModelClient | { kind: string; message: string }>;
  signal: AbortSignal;
}

/** Share of the usable window kept verbatim by an automatic compaction; after a refusal the estimate was short, so less. */
const KEEP_SHARE = 0.5;
const KEEP_SHARE_AFTER_REFUSAL = 0.25;

/** Runs one compaction of the agent's context (docs/compaction-undo.md); true when the context changed. */
export async function compactAgent(a: AgentContext, trigger: CompactionTrigger, policy: KeepPolicy, instruction?: string): Promise<boolean> {
  const c = a.deps.config.current().loop_control;
  const limits = a.deps.limits();
  const overhead = a.overhead();
  const done = await compact({
    deps: a.deps, sessionId: a.sessionId, agentId: a.agentId, history: a.history, client: await a.client(), trigger, policy,
    budget: a.budget ? a.gauge.effective(a.budget) : { window: Number.MAX_SAFE_INTEGER, reserve: 0 }, overhead, tokensBefore: a.gauge.tokens(overhead),
    maxAttempts: Math.max(1, c.compaction_max_attempts), retryBaseMs: limits.retryBaseMs, idleTimeoutMs: limits.idleTimeoutMs ?? 0, signal: a.signal,
    ...(instruction ? { instruction } : {}),
  });
  if (done) a.gauge.reset();
  return done;
}

/** `:compact`: the whole context into the summary. */
export const MANUAL_POLICY: KeepPolicy = { keepTokens: 0, keepCurrentTurn: false };

/**
 * What a turn runs with to stay inside the window: before each step, a compaction when the next
 * request would leave less than the reserve free (recent turns and the running one kept); after the
 * provider refuses a request as too long, one compaction keeping less, then the step is retried.
 */
export function contextHooks(a: AgentContext): { due(): boolean; beforeStep(): Promise<void>; context: TurnContext } {
  const budget = () => (a.budget ? a.gauge.effective(a.budget) : undefined);
  const share = (s: number) => {
    const b = budget();
    return b ? keepTokens(b, a.overhead(), s) : 0;
  };
  const due = () => {
    const b = budget();
    return b !== undefined && !fits(b, a.gauge.tokens(a.overhead()));
  };
  return {
    due,
    beforeStep: async () => {
      if (due()) await compactAgent(a, 'auto', { keepTokens: share(KEEP_SHARE), keepCurrentTurn: true });
    },
    context: {
      // The provider counts more than the estimate (or the window is smaller than configured): keep at most
      // a quarter of what it refused, and hold later requests below its size.
      overflow: () => {
        if (a.budget) a.gauge.refused(a.budget.window, a.gauge.tokens(a.overhead()));
        return compactAgent(a, 'auto', {
          keepTokens: Math.min(share(KEEP_SHARE_AFTER_REFUSAL), Math.floor(historyTokens(a.history) * KEEP_SHARE_AFTER_REFUSAL)), keepCurrentTurn: true,
        });
      },
      measured: (tokens) => a.gauge.measure(tokens),
    },
  };
}
