import type Koa from 'koa';
import { bannedError, bearerFrom, tokenMatches, unauthorizedError, type AuthBan } from '../../../protocol/access/token.ts';
import { HEALTHZ_PATH, isApiPath } from '../request-path.ts';

/**
 * Paths that need the token: every spelling of /api/* and of the two served specs (see
 * isApiPath), except OPTIONS preflights and healthz in its one routed spelling. `path` is the
 * canonical path, the same value the router matches.
 */
export function requiresAuth(method: string, path: string): boolean {
  if (method === 'OPTIONS') return false;
  if ((method === 'GET' || method === 'HEAD') && path === HEALTHZ_PATH) return false;
  return isApiPath(path);
}

export function authMiddleware(opts: { token: string; bypass: boolean; ban: AuthBan }): Koa.Middleware {
  return async (ctx, next) => {
    if (!requiresAuth(ctx.method, ctx.path)) return next();
    const source = ctx.request.socket.remoteAddress ?? 'unknown';
    if (opts.ban.isBanned(source)) throw bannedError();
    if (!opts.bypass && !tokenMatches(bearerFrom(ctx.get('Authorization')), opts.token)) {
      opts.ban.recordFailure(source);
      throw unauthorizedError();
    }
    await next();
  };
}
