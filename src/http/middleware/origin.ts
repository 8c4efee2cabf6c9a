import type Koa from 'koa';
import { ApiError } from '../../../protocol/errors.ts';
import { Codes } from '../../../protocol/codes.ts';
import { isAllowedOrigin } from '../../../protocol/access/origin.ts';
import type { AccessPolicy } from '../../../protocol/access/host.ts';

export function originMiddleware(policy: AccessPolicy): Koa.Middleware {
  return async (ctx, next) => {
    const origin = ctx.get('Origin') || undefined;
    if (!isAllowedOrigin(origin, ctx.get('Host') || undefined, policy)) {
      throw new ApiError(Codes.UNAUTHORIZED, `origin not allowed: ${origin}`, { httpStatus: 403, details: { origin } });
    }
    if (origin) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Vary', 'Origin');
      ctx.set('Access-Control-Expose-Headers', 'X-Request-Id, ETag, Content-Range, Accept-Ranges');
    }
    if (ctx.method === 'OPTIONS') {
      ctx.set('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE, OPTIONS');
      ctx.set('Access-Control-Allow-Headers', ctx.get('Access-Control-Request-Headers') || 'Authorization, Content-Type, X-Request-Id');
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return;
    }
    await next();
  };
}
