import type { GoalSnapshot } from '../../protocol/events/session.ts';
import type { ResolvedConfig } from '../config/resolve.ts';

type Limit = { limit: number; remaining: number; reached: boolean } | null;

/** Budgets of a new goal from `[goal]` (0 = none): remaining and reached are recomputed on each update. */
export function newBudget(cfg: ResolvedConfig['goal']): GoalSnapshot['budget'] {
  const b = (limit: number): Limit => (limit > 0 ? { limit, remaining: limit, reached: false } : null);
  return { tokens: b(cfg.max_tokens), turns: b(cfg.max_turns), wallClockMs: b(cfg.max_wall_clock_ms) };
}

/** The budget against the goal's counts. */
export function budgetOf(g: Pick<GoalSnapshot, 'budget' | 'tokensUsed' | 'turnsUsed' | 'wallClockMs'>): GoalSnapshot['budget'] {
  const b = (cur: Limit, used: number): Limit => (cur ? { limit: cur.limit, remaining: Math.max(0, cur.limit - used), reached: used >= cur.limit } : null);
  return { tokens: b(g.budget.tokens, g.tokensUsed), turns: b(g.budget.turns, g.turnsUsed), wallClockMs: b(g.budget.wallClockMs, g.wallClockMs) };
}

/** The first budget reached, as the goal's terminal reason. */
export function reachedBudget(b: GoalSnapshot['budget']): string | undefined {
  if (b.turns?.reached) return 'budget_turns';
  if (b.tokens?.reached) return 'budget_tokens';
  if (b.wallClockMs?.reached) return 'budget_wall_clock';
  return undefined;
}
