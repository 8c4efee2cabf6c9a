/** Backoff of loop_control retries: exponential with full jitter, capped; `retry_after_ms` wins when larger. */
export const DEFAULT_RETRY_BASE_MS = 500;
const MAX_DELAY_MS = 30_000;

/**
 * Part B loop_control: a model request with no stream part for this long (or no first byte) times out, transiently.
 * `SVC_CODE_MODEL_IDLE_TIMEOUT_MS` replaces it (0 turns the timeout off; src/app/settings.ts).
 */
export const DEFAULT_MODEL_IDLE_TIMEOUT_MS = 300_000;

export function backoffMs(attempt: number, baseMs: number, retryAfterMs?: number, random = Math.random): number {
  const ceiling = Math.min(MAX_DELAY_MS, baseMs * 2 ** (attempt - 1));
  const jittered = Math.round(ceiling / 2 + (random() * ceiling) / 2);
  // A server's retry-after is honoured, but the test knob (base 0) still keeps retries instant.
  return baseMs === 0 ? 0 : Math.max(jittered, Math.min(retryAfterMs ?? 0, MAX_DELAY_MS));
}

/** Sleeps `ms`, resolving early (false) when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
