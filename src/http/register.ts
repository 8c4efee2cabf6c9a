import Router from '@koa/router';
import type Koa from 'koa';
import { koaBody } from 'koa-body';
import { Codes } from './codes.ts';
import { ApiError, unsupportedAction } from './errors.ts';
import { rewriteActionPath, toRouterPath, type RouteDef } from './route.ts';
import { parseOrThrow } from './validate.ts';

const JSON_LIMIT = '16mb';

function methodKey(m: string): 'get' | 'post' | 'put' | 'patch' | 'delete' {
  return m.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
}

function queryObject(ctx: Koa.Context): Record<string, unknown> {
  return { ...(ctx.query as Record<string, unknown>) };
}

function runRoute(def: RouteDef): Koa.Middleware {
  return async (ctx) => {
    const params = def.params ? parseOrThrow(def.params, ctx.params ?? {}) : ctx.params;
    const query = def.query ? parseOrThrow(def.query, queryObject(ctx)) : undefined;
    let body: unknown;
    if (def.body) {
      const raw = (ctx.request as { body?: unknown }).body;
      body = parseOrThrow(def.body, raw ?? {});
    }
    const data = await def.handler({ params, query, body, ctx });
    if (def.raw) return;
    if (def.successStatus === 204) {
      ctx.status = 204;
      ctx.body = null;
      return;
    }
    ctx.status = def.successStatus ?? 200;
    ctx.body = {
      code: def.successCode ?? Codes.OK,
      msg: 'success',
      data: data === undefined ? null : data,
      request_id: ctx.state.requestId,
    };
  };
}

/** Malformed or oversize JSON bodies are 40001 with details, never a 500. */
function bodyError(err: Error & { status?: number }): never {
  const message = err.status === 413 ? `request body too large (limit ${JSON_LIMIT})` : `malformed JSON body: ${err.message}`;
  throw new ApiError(Codes.VALIDATION, message, { details: [{ field: 'body', message }] });
}

/** Mounts the routes on a router, plus the `unsupported action` fallbacks of action routes. */
export function buildRouter(routes: RouteDef[]): Router {
  const router = new Router();
  const bodyParser = koaBody({ jsonLimit: JSON_LIMIT, multipart: false, text: false, urlencoded: false, onError: bodyError });
  const actionBases = new Map<string, Set<string>>();
  const plainPaths = new Set<string>();
  for (const def of routes) {
    const path = toRouterPath(def.path);
    router[methodKey(def.method)](def.operationId, path, ...(def.method === 'GET' ? [] : [bodyParser]), runRoute(def));
    const at = path.lastIndexOf('/@');
    if (at >= 0) {
      const base = path.slice(0, at);
      const methods = actionBases.get(base) ?? new Set<string>();
      methods.add(def.method);
      actionBases.set(base, methods);
    } else {
      plainPaths.add(`${def.method} ${path}`);
    }
  }
  // Unknown `:action` on a known base, and a missing action where only actions exist: 40001.
  for (const [base, methods] of actionBases) {
    for (const m of methods) {
      router[methodKey(m)](`${base}/@:action`, (ctx) => {
        throw unsupportedAction(String(ctx.params.action ?? ''));
      });
      if (!plainPaths.has(`${m} ${base}`)) {
        router[methodKey(m)](base, () => {
          throw unsupportedAction('');
        });
      }
    }
  }
  return router;
}

/** Rewrites `path:action` so the router can match it; keeps the original for logs. */
export const actionRewrite: Koa.Middleware = async (ctx, next) => {
  const original = ctx.path;
  const { path } = rewriteActionPath(original);
  if (path !== original) ctx.path = path;
  ctx.state.originalPath = original;
  await next();
};

/** Anything no route took. */
export const notFoundFallback: Koa.Middleware = async (ctx, next) => {
  await next();
  if (ctx.body !== undefined || ctx.status !== 404) return;
  const original = String(ctx.state.originalPath ?? ctx.path);
  if (ctx.path !== original) throw unsupportedAction(original.slice(original.lastIndexOf(':') + 1));
  throw new ApiError(Codes.VALIDATION, `no such endpoint: ${ctx.method} ${original}`, {
    httpStatus: 404,
    details: [{ field: 'path', message: 'no such endpoint' }],
  });
};
