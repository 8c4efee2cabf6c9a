import type { LiveSessions } from '../sessions/live.ts';
import type { SessionRuntime } from './runtime.ts';

/**
 * How long a loaded session may sit idle before its runtime is unloaded: 30 minutes, unless
 * `SVC_CODE_RUNTIME_IDLE_MS` says otherwise (read at start, src/app/settings.ts; `0` keeps every runtime).
 */
export const DEFAULT_RUNTIME_IDLE_MS = 30 * 60_000;
/** The sweep runs at most this far apart (sooner with a shorter idle time). */
const MAX_SWEEP_MS = 60_000;


export function sweepEveryMs(idleMs: number): number {
  return Math.max(10, Math.min(MAX_SWEEP_MS, Math.floor(idleMs / 2)));
}

/**
 * Whether a loaded session can be unloaded now: none of its agents runs, queues, compacts or
 * holds a prompt being validated, and the session has no other work (background tasks,
 * subagents) and waits on no approval or question.
 */
export function quiet(runtimes: SessionRuntime[], live: LiveSessions, sessionId: string): boolean {
  const state = live.get(sessionId);
  return runtimes.every((r) => r.idle) && !state?.busy && (state?.pending_interaction ?? 'none') === 'none';
}
