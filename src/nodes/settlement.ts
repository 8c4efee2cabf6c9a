import type { SessionIndex, SessionRecord } from '../../projections/session-index/session-index.ts';
import type { InterruptCause } from '../engine/interrupted.ts';
import type { Logger } from '../lib/logger.ts';
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
  goals?: { pauseLeftActive(s: SessionRecord): Promise<boolean> };
}

/** What settling one session did: approvals cancelled, questions dismissed, whether a goal was paused, a turn ended. */
export interface Settled {
  approvals: number;
  questions: number;
  goal: boolean;
  turn: boolean;
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
 * What a stopped run left open in one session, settled: the same steps for this daemon's restart and for the takeover
 * of a dead node's session. The goal is paused before the turn ends: the goal driver reacts to the `turn.ended` and
 * must not pursue the goal unasked.
 */
export async function settleLeftOpen(p: Settlers, sessionId: string, cause: InterruptCause): Promise<Settled> {
  const done: Settled = { approvals: 0, questions: 0, goal: false, turn: false };
  const steps = [
    async (s: SessionRecord) => { done.approvals = await p.permissions.cancelLeftPending(s); },
    async (s: SessionRecord) => { done.questions = await p.questions.dismissLeftPending(s); },
    async (s: SessionRecord) => { done.goal = (await p.goals?.pauseLeftActive(s)) ?? false; },
    async (s: SessionRecord) => { done.turn = await p.engine.settleInterrupted(s, cause); },
  ];
  for (const step of steps) {
    // Each step reads the record the previous one's events left (the read models apply an append when it is accepted).
    const s = p.sessions.get(sessionId);
    if (!s) break;
    await step(s);
  }
  return done;
}

/** What the start settled, summed over the sessions it claimed. */
export interface SettledAtStart {
  sessions: number;
  approvals: number;
  questions: number;
  goals: number;
  turns: number;
}

/**
 * At start, before anything is served: the sessions a previous run left open whose lease this node takes
 * (`claimLeftOpen`), each settled as a restart; one warning sums up what was settled.
 */
export async function settleLeftAtStart(p: Settlers & { leases: Pick<SessionLeases, 'acquire'>; log: Logger }): Promise<SettledAtStart> {
  const total: SettledAtStart = { sessions: 0, approvals: 0, questions: 0, goals: 0, turns: 0 };
  for (const id of await claimLeftOpen(p.sessions, p.leases)) {
    const one = await settleLeftOpen(p, id, 'restart');
    total.sessions++;
    total.approvals += one.approvals;
    total.questions += one.questions;
    total.goals += Number(one.goal);
    total.turns += Number(one.turn);
  }
  if (total.sessions) p.log.warn(total, 'settled what a restart left open: approvals cancelled, questions dismissed, goals paused, turns ended interrupted');
  return total;
}
