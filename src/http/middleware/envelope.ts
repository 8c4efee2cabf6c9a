import type Koa from 'koa';
import type { Ids } from '../../lib/ids.ts';
import { Codes } from '../../../protocol/codes.ts';
import { mappedError } from '../../../protocol/error-mapping.ts';
import { ApiError } from '../../../protocol/errors.ts';
import { jsonBody } from '../serialize.ts';
import type { Logger } from '../../lib/logger.ts';

const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** Request id (a valid client X-Request-Id is honored) and the one error -> envelope mapping. */
export function envelopeMiddleware(log: Logger, ids: Pick<Ids, 'ulid'>): Koa.Middleware {
  return async (ctx, next) => {
    const given = ctx.get('X-Request-Id');
    const requestId = ULID_RE.test(given) ? given : ids.ulid();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } catch (err) {
      const apiErr = toApiError(err, log, ctx);
      ctx.status = apiErr.httpStatus;
      const body: Record<string, unknown> = { code: apiErr.code, msg: apiErr.message, data: apiErr.data, request_id: requestId };
      if (apiErr.details !== undefined) body.details = apiErr.details;
      ctx.body = body;
    }
    // Serialised here, where a failure still becomes an envelope (koa would answer a bare 500).
    jsonBody(ctx, log);
  };
}

function toApiError(err: unknown, log: Logger, ctx: Koa.Context): ApiError {
  const mapped = mappedError(err);
  if (mapped) return mapped;
  const e = err as { status?: number; expose?: boolean; message?: string; type?: string; code?: string };
  // A NUL byte in a client path reaches fs calls as ERR_INVALID_ARG_VALUE: bad input, not a fault.
  if (e?.code === 'ERR_INVALID_ARG_VALUE' && /null bytes/.test(e.message ?? '')) {
    return new ApiError(Codes.VALIDATION, 'path must not contain NUL bytes', { details: [{ field: 'path', message: 'must not contain NUL bytes' }] });
  }
  // Body-parser and other HTTP errors meant for the client (malformed JSON, oversize body).
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500 && e.expose) {
    const message = e.status === 413 ? 'request body too large' : `malformed request body: ${e.message}`;
    return new ApiError(Codes.VALIDATION, message, { details: [{ field: 'body', message }] });
  }
  log.error({ err, method: ctx.method, path: ctx.path, request_id: ctx.state.requestId }, 'uncaught error');
  return new ApiError(Codes.INTERNAL, 'internal error');
}
