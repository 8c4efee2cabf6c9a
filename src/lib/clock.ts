/**
 * The time source of everything that stamps a time: event `ts`, `created_at`, expiries. Passed to
 * each module that stamps, so a test swaps it at start instead of mutating a shared object.
 * Elapsed-time measurements (timeouts, durations) keep `performance.now()` / timers.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
