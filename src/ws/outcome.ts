import type { Logger } from '../lib/logger.ts';
import { Codes } from '../../protocol/codes.ts';
import type { FieldIssue } from '../../protocol/errors.ts';
import { mappedError } from '../../protocol/error-mapping.ts';

/** What a client frame answers: the ack's fields, and work to run once the ack is sent. */
export interface Outcome {
  code: number;
  msg: string;
  payload: unknown;
  details?: unknown;
  after?: () => void;
}

export function ok(payload: unknown, after?: () => void): Outcome {
  return after ? { code: Codes.OK, msg: 'success', payload, after } : { code: Codes.OK, msg: 'success', payload };
}

export function invalid(msg: string, details?: FieldIssue[]): Outcome {
  return details ? { code: Codes.VALIDATION, msg, payload: null, details } : { code: Codes.VALIDATION, msg, payload: null };
}

/**
 * The one error -> ack mapping of the WebSocket, as the envelope middleware is HTTP's: a typed
 * error (or one the protocol maps) keeps its code, message and details (`details` overrides them
 * where a frame reports more); anything else is a fault, logged, 50001.
 */
export function errorOutcome(err: unknown, log: Logger, context: Record<string, unknown>, details?: unknown): Outcome {
  const known = mappedError(err);
  if (!known) {
    log.error({ err, ...context }, 'ws client frame failed');
    return { code: Codes.INTERNAL, msg: 'internal error', payload: null };
  }
  const d = details ?? known.details;
  return { code: known.code, msg: known.message, payload: null, ...(d !== undefined ? { details: d } : {}) };
}
