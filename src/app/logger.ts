import pino from 'pino';

export type Logger = pino.Logger;

/** Structured logs to stderr; secrets are redacted by path as a second line of defence. */
export function createLogger(level = process.env.SVC_CODE_LOG_LEVEL ?? 'info'): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: { paths: ['token', 'api_key', '*.api_key', 'authorization', '*.authorization', 'headers.authorization'], censor: '[redacted]' },
    },
    pino.destination(2),
  );
}
