import type Koa from 'koa';
import { ApiError } from '../../../protocol/errors.ts';
import { Codes } from '../../../protocol/codes.ts';
import { hostRefusal, isAllowedHost, type AccessPolicy } from '../../../protocol/access/host.ts';

/** Refuses requests whose Host names the daemon by a name it was not given. */
export function hostMiddleware(policy: AccessPolicy): Koa.Middleware {
  return async (ctx, next) => {
    const header = ctx.get('Host');
    if (!isAllowedHost(header, policy)) {
      const r = hostRefusal(header);
      throw new ApiError(Codes.UNAUTHORIZED, r.msg, { httpStatus: r.status, details: r.details });
    }
    await next();
  };
}
