import pino from 'pino';

export type Logger = pino.Logger;

/** Fields never written to a log (a second line of defence behind not logging secrets at all). */
export const LOG_REDACT_PATHS = ['token', 'api_key', '*.api_key', 'authorization', '*.authorization', 'headers.authorization'];

/** Structured logs to stderr; secrets are redacted by path as a second line of defence. The level: `SVC_CODE_LOG_LEVEL` at the edge. */
export function createLogger(level = 'info'): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' },
    },
    pino.destination(2),
  );
}

/**
 * The catch handler of background work whose failure has no caller to answer (a journal append
 * from a timer, the end of a turn): the failure is logged with what failed, never swallowed.
 */
export function logFailure(log: Logger, what: string, context: Record<string, unknown> = {}): (err: unknown) => void {
  return (err) => log.error({ err, ...context }, `${what} failed`);
}
