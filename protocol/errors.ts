import { CodeMessages, Codes, type Code } from './codes.ts';

/** A field-level validation problem, listed in `details` of a 40001 envelope. */
export interface FieldIssue {
  field: string;
  message: string;
  /** The bound that was crossed (maximum length, value, bytes, depth, entries), when there is one. */
  limit?: number;
}

/** The one error type handlers throw; the envelope middleware maps it to the wire. */
export class ApiError extends Error {
  readonly code: Code;
  readonly details: unknown;
  readonly data: unknown;
  readonly httpStatus: number;

  constructor(code: Code, message?: string, opts: { details?: unknown; data?: unknown; httpStatus?: number } = {}) {
    super(message ?? CodeMessages[code] ?? `error ${code}`);
    this.code = code;
    this.details = opts.details;
    this.data = opts.data ?? null;
    this.httpStatus = opts.httpStatus ?? 200;
  }
}

export function validationError(issues: FieldIssue[], message?: string): ApiError {
  const text = message ?? (issues.length ? issues.map((i) => `${i.field}: ${i.message}`).join('; ') : 'validation failed');
  return new ApiError(Codes.VALIDATION, text, { details: issues });
}

export function unsupportedAction(action: string): ApiError {
  return new ApiError(Codes.VALIDATION, `unsupported action: ${action || '(missing)'}`, {
    details: [{ field: 'action', message: `unsupported action: ${action || '(missing)'}` }],
  });
}

export function notFound(code: Code, what: string, id: string): ApiError {
  return new ApiError(code, `${what} not found: ${id}`, { details: { id } });
}
