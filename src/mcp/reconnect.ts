/** How a remote server that failed or dropped is tried again: `baseMs`, doubled each time up to `maxMs`, `attempts` times. */
export interface ReconnectPolicy {
  baseMs: number;
  maxMs: number;
  attempts: number;
}

/** 1 s, 2 s, 4 s ... capped at 60 s, 10 attempts: about 5 minutes before giving up. */
export const DEFAULT_RECONNECT: ReconnectPolicy = { baseMs: 1000, maxMs: 60_000, attempts: 10 };

/** The policy with another first delay (`SVC_MCP_RECONNECT_BASE_MS`: tests shorten the delays; src/app/settings.ts). */
export function reconnectPolicy(baseMs: number): ReconnectPolicy {
  if (baseMs === DEFAULT_RECONNECT.baseMs) return DEFAULT_RECONNECT;
  return { ...DEFAULT_RECONNECT, baseMs, maxMs: Math.max(baseMs, Math.min(DEFAULT_RECONNECT.maxMs, baseMs * 60)) };
}

/** The timer of one connection's background reconnects (none without a policy). */
export class Reconnects {
  private attempt = 0;
  private timer?: NodeJS.Timeout;

  constructor(private readonly policy: ReconnectPolicy | undefined, private readonly run: () => void) {}

  /** Schedules the next attempt; answers `reason` with what happens next, for `last_error`. */
  schedule(reason: string | undefined): string {
    const why = reason ?? 'failed';
    if (!this.policy) return why;
    this.cancel();
    if (this.attempt >= this.policy.attempts) return `${why}; gave up after ${this.policy.attempts} reconnect attempts (POST /api/v1/mcp/servers/{id}:restart tries again)`;
    const delay = Math.min(this.policy.baseMs * 2 ** this.attempt, this.policy.maxMs);
    this.attempt++;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.run();
    }, delay);
    this.timer.unref();
    return `${why}; reconnecting in ${delay} ms (attempt ${this.attempt} of ${this.policy.attempts})`;
  }

  /** A connection that came back starts counting again. */
  reset(): void {
    this.cancel();
    this.attempt = 0;
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
