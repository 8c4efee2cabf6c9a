import Koa from 'koa';
import { AuthBan } from '../../protocol/access/token.ts';
import { authMiddleware } from './middleware/auth.ts';
import { envelopeMiddleware } from './middleware/envelope.ts';
import { originMiddleware } from './middleware/origin.ts';
import { hostMiddleware } from './middleware/host.ts';
import type { AccessPolicy } from '../../protocol/access/host.ts';
import { actionRewrite, buildRouter, canonicalPathMiddleware, notFoundFallback } from './register.ts';
import type { RouteDef } from './route.ts';
import type { ContractChecker } from '../../protocol/contract-check.ts';
import { isLoopbackHost, type ServeOptions } from '../app/options.ts';
import type { Logger } from '../lib/logger.ts';
import type { Ids } from '../lib/ids.ts';
import type { PromptTracer } from '../engine/trace.ts';
import { defaultWebRoot, reservedSegments, staticMiddleware } from './static.ts';

/**
 * The Koa application: envelope, canonical path, Host, origin, auth, forwarding to a session's owner (PostgreSQL
 * nodes, `deps.forward`: src/http/forward.ts), static web UI, `:action` rewrite, routes. The path is decided once,
 * first; the guard, the forwarding and the router all read that one value.
 */
export function createHttpApp(
  deps: {
    log: Logger; ids: Ids; token: string; tracer: PromptTracer; options: Pick<ServeOptions, 'dangerousBypassAuth' | 'webTitle' | 'webRoot'>;
    forward?: Koa.Middleware;
  },
  routes: RouteDef[], ban: AuthBan, access: AccessPolicy, checker?: ContractChecker,
): Koa {
  const koa = new Koa();
  koa.proxy = false;
  koa.silent = true;
  const router = buildRouter(routes, checker, deps.tracer);
  if (deps.tracer.on) koa.use(tracePrompts(deps.tracer));
  koa.use(envelopeMiddleware(deps.log, deps.ids));
  koa.use(canonicalPathMiddleware);
  koa.use(hostMiddleware(access));
  koa.use(originMiddleware(access));
  koa.use(authMiddleware({ token: deps.token, bypass: deps.options.dangerousBypassAuth, ban }));
  // After the token check: a request without the token is refused here, never passed to another node.
  if (deps.forward) koa.use(deps.forward);
  // The web UI on every non-/api path (docs/web-ui.md); /api/* and the daemon's own other routes never reach it.
  koa.use(staticMiddleware({ root: deps.options.webRoot ?? defaultWebRoot(), title: deps.options.webTitle, reserved: reservedSegments(routes.map((r) => r.path)) }));
  koa.use(actionRewrite);
  koa.use(notFoundFallback);
  koa.use(router.routes());
  return koa;
}

export function newAuthBan(host: string): AuthBan {
  return new AuthBan(!isLoopbackHost(host));
}

const PROMPTS_PATH = /^\/api\/v1\/sessions\/([^/]+)\/prompts$/;

/** Tracing only (settings.tracePrompt): when a prompt POST enters and leaves the middleware stack. */
function tracePrompts(tracer: PromptTracer): Koa.Middleware {
  return async (ctx, next) => {
    const id = ctx.method === 'POST' ? PROMPTS_PATH.exec(ctx.path)?.[1] : undefined;
    tracer.mark(id, 'http.in');
    await next();
    tracer.mark(id, 'http.out');
  };
}
