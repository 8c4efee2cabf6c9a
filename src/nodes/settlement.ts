import type { SessionIndex, SessionRecord } from '../../projections/session-index/session-index.ts';
import type { InterruptCause } from '../engine/interrupted.ts';
import type { SessionLeases } from './leases.ts';

/**
 * What a stopped run leaves open in a session, and who settles it (docs/interruptions.md): at start, the sessions
 * this daemon ran before; on a shared journal (docs/scale-out.md "Leases"), only those whose lease it can take (not
 * those another live node runs now), and later the sessions of a dead node, once their leases expire.
 */
export interface Settlers {
  sessions: Pick<SessionIndex, 'get' | 'all'>;
  engine: { settleInterrupted(s: SessionRecord, cause: InterruptCause): Promise<boolean> };
  permissions: { cancelLeftPending(s: SessionRecord): Promise<number> };
  questions: { dismissLeftPending(s: SessionRecord): Promise<number> };
  /** The daemon's goals (print mode has none). */
  goals?: { pauseLeftActive(s: SessionRecord): Promise<void> };
}

/** Whether a stopped run left anything open in the session: a turn, approvals, questions, an active goal. */
export function leftOpen(s: SessionRecord): boolean {
  return !!s.active_turn || !!s.pending_approvals?.length || !!s.pending_questions?.length || s.goal?.status === 'active';
}

/**
 * At start: the lease of every session left open (none held by another instance of the home), taken where no other
 * live node holds it. Returns the sessions taken: this daemon settles those, and only those. On LevelDB every one.
 */
export async function claimLeftOpen(sessions: Pick<SessionIndex, 'all'>, leases: Pick<SessionLeases, 'acquire'>): Promise<Set<string>> {
  const mine = new Set<string>();
  for (const s of [...sessions.all()]) {
    if (s.foreign || !leftOpen(s)) continue;
    if ((await leases.acquire(s.id)).held) mine.add(s.id);
  }
  return mine;
}

/**
 * A dead node's session, taken over: settled as a restart settles it. The goal is paused before the turn ends: this
 * node's goal driver reacts to the `turn.ended` and must not pursue the goal unasked.
 */
export async function settleTakenOver(p: Settlers, sessionId: string): Promise<void> {
  const steps = [
    (s: SessionRecord) => p.permissions.cancelLeftPending(s),
    (s: SessionRecord) => p.questions.dismissLeftPending(s),
    (s: SessionRecord) => p.goals?.pauseLeftActive(s),
    (s: SessionRecord) => p.engine.settleInterrupted(s, 'takeover'),
  ];
  for (const step of steps) {
    // Each step reads the record the previous one's events left (the read models apply an append when it is accepted).
    const s = p.sessions.get(sessionId);
    if (!s) return;
    await step(s);
  }
}
