import type Koa from 'koa';
import { ApiError } from '../errors.ts';
import { Codes } from '../codes.ts';
import { isAllowedHost, type AccessPolicy } from './host.ts';

const LOOPBACK_HOSTS = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * Browsers send `Origin`; a page of another site must not drive the daemon.
 * Allowed: no Origin (non-browser clients), loopback http(s) origins, the
 * daemon's own origin (same Host, when that Host is one the policy trusts: an IP
 * literal or a name the user allowed), non-web app schemes (IDE webviews, desktop
 * shells: no web site can send those), and any origin listed in SVC_CODE_ALLOWED_ORIGINS.
 */
export function isAllowedOrigin(origin: string | undefined, host: string | undefined, policy: AccessPolicy): boolean {
  if (!origin) return true;
  if (policy.allowedOrigins.includes(origin)) return true;
  if (origin === 'null') return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return true;
  if (LOOPBACK_HOSTS.test(url.hostname)) return true;
  // The daemon's own page (http://<ip>:<port>, or a name the user allowed). A page reached
  // through any other name could be a DNS-rebinding attack that also controls Host.
  return Boolean(host) && url.host === host!.toLowerCase() && isAllowedHost(host, policy);
}

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
