import type { PrintBackgroundMode } from './settings.ts';

/** How often the wait re-checks the session besides each turn's end (a task ending starts no turn in drain mode). */
const POLL_MS = 50;

/** What the wait reads: the run's turns and the session's work. */
export interface WaitState {
  /** Main-agent turns of the run that started / ended. */
  started(): number;
  ended(): number;
  /** Resolves at the next main-agent turn end. */
  nextEnd(): Promise<void>;
  /** The session has a main turn running or queued, background work running, or a follow-up turn being queued. */
  busy(): boolean;
  /** Task notes no turn has taken yet. */
  notesWaiting(): number;
  /** Steer: no further follow-up turn may start (`maxTurns` of them were admitted, src/cli/print/follow-ups.ts, and have started). */
  exhausted(): boolean;
}

export interface WaitLimits {
  mode: PrintBackgroundMode;
  /** `print_wait_ceiling_s` in ms: how long the wait after the first turn may last. */
  ceilingMs: number;
  /** `print_max_turns` (or `--max-turns`): follow-up turns background completions may start (steer). */
  maxTurns: number;
}

/**
 * Why the wait ended: the work settled, Ctrl-C, a limit cut it short (work was still pending), or (steer) notes
 * are left that no follow-up turn took though one was allowed (the engine's follow-up prompt was refused).
 */
export type WaitEnd = 'settled' | 'interrupted' | 'ceiling' | 'max_turns' | 'unfed';

/**
 * Part B `[background]` in print mode, after the prompt was accepted: waits for the first turn's end, then
 * `exit` leaves at once; `drain` waits until no background work is running (the completions are not fed back);
 * `steer` waits until no turn runs, no work runs and no completion waits to be fed back (a completion while the
 * agent is idle starts a follow-up turn: the engine's wake-ups, src/tasks/wakeups.ts), at most `maxTurns` of them. The wait after the first turn lasts at most
 * `ceilingMs`. `stop` (Ctrl-C, the ceiling) is the caller's: it aborts what runs; the wait then returns once no turn
 * runs.
 */
export async function waitForWork(s: WaitState, limits: WaitLimits, interrupted: AbortSignal, stop: () => Promise<void>): Promise<WaitEnd> {
  const onInterrupt = aborted(interrupted);
  // Once interrupted, the settled interrupt no longer wakes the loop (it would spin without ever yielding to I/O).
  const wake = () => Promise.race([s.nextEnd(), delay(POLL_MS), ...(interrupted.aborted ? [] : [onInterrupt])]);
  while (s.ended() < 1 && !interrupted.aborted) await wake();
  let cut: WaitEnd | undefined = interrupted.aborted ? 'interrupted' : undefined;
  if (limits.mode === 'exit' && !cut) return 'settled';
  const deadline = performance.now() + limits.ceilingMs;
  for (;;) {
    const running = s.started() > s.ended();
    if (cut) {
      if (!running) return cut;
    } else if (interrupted.aborted) {
      cut = 'interrupted';
      continue;
    } else if (!running) {
      const busy = s.busy();
      const unfed = limits.mode === 'steer' && s.notesWaiting() > 0;
      if (!busy && !unfed) return 'settled';
      // Steer: nothing more may be fed back, so the pending work would be waited for in vain.
      if (limits.mode === 'steer' && s.exhausted()) return 'max_turns';
      // Notes waiting with nothing running: the wake-up's prompt was refused (it said why); nothing else would take them.
      if (!busy) return 'unfed';
    }
    if (!cut && performance.now() >= deadline) {
      cut = 'ceiling';
      await stop();
      continue;
    }
    await wake();
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
