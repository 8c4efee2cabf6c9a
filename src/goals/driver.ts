import type { JournalEvent } from '../../journal/types.ts';
import type { SessionIndex, SessionRecord } from '../../projections/session-index/session-index.ts';
import type { GoalSnapshot } from '../../protocol/events/session.ts';
import type { TurnEndedPayload, TurnStartedPayload } from '../../protocol/events/turns.ts';
import type { Logger } from '../lib/logger.ts';
import type { EventJournal } from '../events/journal.ts';
import type { EngineRegistry } from '../engine/runtime-registry.ts';
import { MAIN_AGENT } from '../engine/turn.ts';
import { budgetOf, reachedBudget } from './budget.ts';
import { GOAL_TOOL } from './tool.ts';
import { known } from '../../protocol/events/known.ts';

interface OpenTurn {
  turnId: string;
  startedAt: number;
  /** The goal that was active when the turn started. */
  goalId?: string;
}

export interface GoalDriverDeps {
  journal: EventJournal;
  sessions: SessionIndex;
  engine: Pick<EngineRegistry, 'get'>;
  log: Logger;
  /** Queues a prompt on the session's main agent (the prompt intake, with its checks). */
  submit(sessionId: string, text: string): Promise<unknown>;
}

/** The prompt that keeps the agent on its goal. */
export function continuationText(g: GoalSnapshot): string {
  const criterion = g.completionCriterion ? `\nDone when: ${g.completionCriterion}` : '';
  return `Continue working toward the session goal.\nGoal: ${g.objective}${criterion}\n`
    + `When the goal is fully achieved, call the ${GOAL_TOOL} tool with a short summary; until then keep making progress.`;
}

/**
 * Goals that drive the loop (docs/goals.md), a reaction to committed events: each main-agent turn
 * that ends while the goal is active is counted (turns, tokens, wall clock from turn.started /
 * turn.ended), then the goal continues with a new prompt when nothing is queued, or stops: the
 * model called GoalComplete, a budget ran out (blocked), the turn failed (blocked) or was
 * cancelled (paused). A goal set or resumed while the session is idle starts at once.
 */
export class GoalDriver {
  /** The open main turn of each session (its start time). */
  private readonly turns = new Map<string, OpenTurn>();
  /**
   * The goal each session had at the last goal.updated seen, in journal order (a resume or a new goal starts work);
   * null: none. The read model may be ahead of the events this driver has seen (accepted, not yet committed).
   */
  private readonly seen = new Map<string, { goalId: string; status: string } | null>();

  constructor(private readonly deps: GoalDriverDeps) {}

  /**
   * Another node's commits (PostgreSQL): its goal changes are noted, never acted on (that node counts and continues
   * its goals), so the goal as seen here is current when a session's lease moves to this node.
   */
  readonly onFollowed = (events: JournalEvent[]): void => {
    for (const e of events) {
      if (known(e).type !== 'goal.updated') continue;
      const g = (e.payload as { goal: GoalSnapshot | null }).goal;
      this.seen.set(e.stream, g && { goalId: g.goalId, status: g.status });
    }
  };

  readonly onCommitted = (events: JournalEvent[]): void => {
    for (const e of events) {
      if (known(e).type === 'turn.started') {
        const p = e.payload as TurnStartedPayload;
        if ((p.agent_id ?? MAIN_AGENT) !== MAIN_AGENT) continue;
        // The goal as of this event: a pause accepted since the turn started must not stop the turn from counting.
        const g = this.goalAsSeen(e.stream);
        this.turns.set(e.stream, { turnId: p.turn_id, startedAt: Date.parse(p.started_at) || Date.parse(e.ts), ...(g?.status === 'active' ? { goalId: g.goalId } : {}) });
      } else if (known(e).type === 'turn.ended') {
        const p = e.payload as TurnEndedPayload;
        if ((p.agent_id ?? MAIN_AGENT) !== MAIN_AGENT) continue;
        const open = this.turns.get(e.stream);
        this.turns.delete(e.stream);
        void this.turnEnded(e.stream, p, open).catch((err) => this.deps.log.warn({ err: (err as Error).message, session_id: e.stream }, 'goal bookkeeping failed'));
      } else if (known(e).type === 'goal.updated') {
        const g = (e.payload as { goal: GoalSnapshot | null }).goal;
        const prev = this.seen.get(e.stream);
        this.seen.set(e.stream, g && { goalId: g.goalId, status: g.status });
        const open = this.turns.get(e.stream);
        const started = g?.status === 'active' && (!prev || prev.goalId !== g.goalId || prev.status !== 'active');
        if (started && !open) void this.kick(e.stream).catch((err) => this.deps.log.warn({ err: (err as Error).message, session_id: e.stream }, 'starting a goal failed'));
      }
    }
  };

  /**
   * Takes every session's goal from the read models, once what the last run left open is settled and before the
   * driver sees any commit (src/app/phases/daemon.ts): nothing is in flight then, so the records are the goals as of
   * the journal. Later sessions' goals come from the goal.updated events seen.
   */
  seed(): void {
    for (const s of this.deps.sessions.all()) if (s.goal && !this.seen.has(s.id)) this.seen.set(s.id, { goalId: s.goal.goalId, status: s.goal.status });
  }

  /** The session's goal as of the events seen; a session neither seeded nor seen since is read from its record. */
  private goalAsSeen(sessionId: string): { goalId: string; status: string } | null {
    if (!this.seen.has(sessionId)) {
      const g = this.deps.sessions.get(sessionId)?.goal;
      this.seen.set(sessionId, g ? { goalId: g.goalId, status: g.status } : null);
    }
    return this.seen.get(sessionId) ?? null;
  }

  /**
   * A goal left active by a run that stopped (a restart, a dead node's session taken over) is paused, not lost (and
   * not pursued unasked; src/nodes/settlement.ts). Whether it was.
   */
  async pauseLeftActive(s: SessionRecord): Promise<boolean> {
    if (s.goal?.status !== 'active') return false;
    await this.update(s.id, { ...s.goal, status: 'paused' });
    return true;
  }

  private async update(sessionId: string, goal: GoalSnapshot): Promise<void> {
    await this.deps.journal.append([{ stream: sessionId, type: 'goal.updated', payload: { goal: { ...goal, budget: budgetOf(goal) } } }]);
  }

  private async turnEnded(sessionId: string, p: TurnEndedPayload, open: OpenTurn | undefined): Promise<void> {
    const goal = this.deps.sessions.get(sessionId)?.goal;
    if (!goal) return;
    // A turn counts when it started under the active goal (paused or completed during it included); a cancelled goal counts no more.
    const counts = open?.turnId === p.turn_id && open.goalId === goal.goalId && goal.terminalReason !== 'cancelled';
    if (!counts && goal.status !== 'active') return;
    const wall = open && open.turnId === p.turn_id ? Math.max(0, (Date.parse(p.ended_at) || Date.now()) - open.startedAt) : 0;
    if (!counts) {
      // A turn that started before the goal: the goal continues after it without counting it.
      await this.continueIfIdle(sessionId, true);
      return;
    }
    const next: GoalSnapshot = {
      ...goal, turnsUsed: goal.turnsUsed + 1, tokensUsed: goal.tokensUsed + p.usage.input_tokens + p.usage.output_tokens, wallClockMs: goal.wallClockMs + wall,
    };
    if (goal.status !== 'active') return this.update(sessionId, next);
    const exhausted = reachedBudget(budgetOf(next));
    if (p.reason === 'failed') return this.update(sessionId, { ...next, status: 'blocked', terminalReason: 'turn_failed' });
    if (p.reason === 'cancelled') return this.update(sessionId, { ...next, status: 'paused' });
    if (exhausted) return this.update(sessionId, { ...next, status: 'blocked', terminalReason: exhausted });
    await this.update(sessionId, next);
    await this.continueIfIdle(sessionId, true);
  }

  /** A goal just set or resumed: work starts now unless a turn runs (its end continues it). */
  private async kick(sessionId: string): Promise<void> {
    const goal = this.deps.sessions.get(sessionId)?.goal;
    if (goal?.status !== 'active') return;
    const exhausted = reachedBudget(budgetOf(goal));
    if (exhausted) return this.update(sessionId, { ...goal, status: 'blocked', terminalReason: exhausted });
    if (this.deps.engine.get(sessionId)?.busy) return;
    await this.continueIfIdle(sessionId, false);
  }

  /** Queues the continuation unless a prompt is already queued (it runs first; its turn's end continues the goal). */
  private async continueIfIdle(sessionId: string, afterTurn: boolean): Promise<void> {
    const rt = this.deps.engine.get(sessionId);
    if (rt && rt.listPrompts().queued.length > 0) return;
    const goal = this.deps.sessions.get(sessionId)?.goal;
    if (goal?.status !== 'active') return;
    try {
      await this.deps.submit(sessionId, continuationText(goal));
    } catch (err) {
      this.deps.log.warn({ err: (err as Error).message, session_id: sessionId }, 'could not continue the goal');
      // After a turn, a goal that cannot continue is blocked; a goal set on a session that cannot run yet stays active.
      if (afterTurn) await this.update(sessionId, { ...goal, status: 'blocked', terminalReason: 'continuation_failed' });
    }
  }
}
