import type { WaitLimits } from './background.ts';

/**
 * Print mode's gate on the engine's follow-up turns (src/tasks/wakeups.ts: background work that ends while the
 * agent is idle starts a turn whose prompt is the task notes, origin `task`), passed to the core as its
 * `admitFollowUp`. Closed until the run knows its session and limits; then `exit` and `drain` admit none (the
 * notes stay waiting, journaled at the end for a later `--continue`), `steer` admits at most `maxTurns`.
 */
export class FollowUpGate {
  private sessionId: string | undefined;
  private limit = 0;
  private admitted = 0;

  /** Opens the gate for the run's session as its limits say. */
  open(sessionId: string, limits: Pick<WaitLimits, 'mode' | 'maxTurns'>): void {
    this.sessionId = sessionId;
    this.limit = limits.mode === 'steer' ? limits.maxTurns : 0;
  }

  /** The core's `admitFollowUp`: true counts one follow-up turn. */
  readonly admit = (sessionId: string): boolean => {
    if (sessionId !== this.sessionId || this.admitted >= this.limit) return false;
    this.admitted += 1;
    return true;
  };

  /** Follow-up turns admitted so far. */
  get count(): number {
    return this.admitted;
  }

  /** No further follow-up turn may start. */
  get exhausted(): boolean {
    return this.admitted >= this.limit;
  }
}
