import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import Router from '@koa/router';
import mime from 'mime-types';
import type Koa from 'koa';
import { Codes } from '../../protocol/codes.ts';
import { ApiError, unsupportedAction, validationError } from '../../protocol/errors.ts';
import { rewriteActionPath, toRouterPath, type MultipartOptions, type RouteDef } from './route.ts';
import { canonicalPath } from './request-path.ts';
import { asError, jsonBody, parseMultipart } from './body.ts';
import { parseOrThrow } from '../../protocol/validate.ts';
import { noTracer, type PromptTracer } from '../engine/trace.ts';
import { mappedError } from '../../protocol/error-mapping.ts';
import type { ContractChecker } from '../../protocol/contract-check.ts';

/** The largest JSON body a route takes (and a command forwarded to another node, src/http/forward.ts). */
export const JSON_LIMIT_MB = 16;
const JSON_LIMIT = `${JSON_LIMIT_MB}mb`;

function methodKey(m: string): 'get' | 'post' | 'put' | 'patch' | 'delete' {
  return m.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
}

function queryObject(ctx: Koa.Context): Record<string, unknown> {
  return { ...(ctx.query as Record<string, unknown>) };
}

/** Test runs: every business code a route answers must be one it declares, its data must match its schema. */
function checkedRoute(def: RouteDef, run: Koa.Middleware, checker: ContractChecker): Koa.Middleware {
  const route = `${def.method} ${def.path}`;
  return async (ctx, next) => {
    try {
      await run(ctx, next);
    } catch (err) {
      const known = mappedError(err);
      if (known) checker.checkRouteCode(route, known.code, def.codes ?? []);
      throw err;
    }
    const body = ctx.body as { code?: unknown; data?: unknown } | null | undefined;
    if (def.raw || !body || typeof body !== 'object') return;
    if (typeof body.code === 'number' && body.code !== (def.successCode ?? Codes.OK)) checker.checkRouteCode(route, body.code, def.codes ?? []);
    else if (def.data) checker.checkRouteData(route, def.data, body.data);
  };
}

function runRoute(def: RouteDef, tracer: PromptTracer): Koa.Middleware {
  return async (ctx) => {
    if (tracer.on) tracer.mark(ctx.params?.session_id, 'route.start');
    const params = def.params ? parseOrThrow(def.params, ctx.params ?? {}) : ctx.params;
    const query = def.query ? parseOrThrow(def.query, queryObject(ctx)) : undefined;
    let body: unknown;
    if (def.body) {
      const raw = (ctx.request as { body?: unknown }).body;
      // Every body is a JSON object; valibot's object schemas would take an array for one.
      if (Array.isArray(raw)) throw validationError([{ field: 'body', message: 'must be a JSON object' }]);
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
export function bodyError(err: Error & { status?: number }): never {
  const message = err.status === 413 ? `request body too large (limit ${JSON_LIMIT})` : `malformed JSON body: ${err.message}`;
  throw new ApiError(Codes.VALIDATION, message, { details: [{ field: 'body', message }] });
}

// formidable's error codes (FormidableError.js) for file data over the limits.
const FORMIDABLE_TOO_BIG = new Set([1009, 1016]);
const MULTIPART_FIELDS_LIMIT = 1024 * 1024;

function multipartError(err: Error & { code?: unknown }, limit: number): never {
  if (FORMIDABLE_TOO_BIG.has(err.code as number)) {
    const message = `exceeds ${limit} bytes`;
    throw new ApiError(Codes.VALIDATION, `file ${message}`, { details: [{ field: 'file', message, limit }] });
  }
  throw validationError([{ field: 'body', message: `malformed multipart body: ${err.message}` }]);
}

/**
 * multipart/form-data for routes that declare it: other bodies and oversize
 * files are 40001; temp files never outlive the request (the handler moves
 * what it keeps out of the per-request directory).
 */
function multipartBody(opts: MultipartOptions): Koa.Middleware {
  return async (ctx, next) => {
    if (!ctx.is('multipart')) throw validationError([{ field: 'body', message: 'must be multipart/form-data' }]);
    const dir = await mkdtemp(join(opts.uploadDir, 'req-'));
    try {
      let parsed;
      try {
        parsed = await parseMultipart(ctx, {
          formidable: {
            uploadDir: dir, maxFileSize: opts.maxFileBytes, maxTotalFileSize: opts.maxFileBytes,
            allowEmptyFiles: true, minFileSize: 0, maxFieldsSize: MULTIPART_FIELDS_LIMIT,
          },
          // A file part may omit Content-Type (RFC 7578); formidable would read it as a text field.
          onPart: (part) => {
            if (part.originalFilename && !part.mimetype) part.mimetype = mime.lookup(part.originalFilename) || 'application/octet-stream';
          },
        });
      } catch (err) {
        multipartError(asError(err), opts.maxFileBytes);
      }
      (ctx.request as { body?: object }).body = { ...parsed.fields, ...parsed.files };
      await next();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
}

/**
 * Mounts the routes on a router, plus the `unsupported action` fallbacks of action routes; `tracer` marks when a
 * route starts (the prompt-latency trace: createHttpApp passes the daemon's; a router built only to be read, none).
 */
export function buildRouter(routes: RouteDef[], checker?: ContractChecker, tracer: PromptTracer = noTracer): Router {
  // One spelling per route: case-sensitive, no trailing-slash leniency (see request-path.ts).
  const router = new Router({ sensitive: true, strict: true });
  const bodyParser = jsonBody({ limit: JSON_LIMIT, onError: bodyError });
  const actionBases = new Map<string, Set<string>>();
  const plainPaths = new Set<string>();
  for (const def of routes) {
    const path = toRouterPath(def.path);
    const parser = def.multipart ? multipartBody(def.multipart) : bodyParser;
    const run = runRoute(def, tracer);
    router[methodKey(def.method)](def.operationId, path, ...(def.method === 'GET' ? [] : [parser]), checker ? checkedRoute(def, run, checker) : run);
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

/**
 * Decides the request's path once (unreserved escapes decoded) and refuses spellings with no
 * canonical form (`//`, dot segments, malformed escapes) before anything else reads the path.
 */
export const canonicalPathMiddleware: Koa.Middleware = async (ctx, next) => {
  const target = ctx.req.url ?? '';
  const canonical = canonicalPath(target.startsWith('/') ? ctx.path : target);
  if (!canonical.ok) {
    throw new ApiError(Codes.VALIDATION, `no such endpoint: ${canonical.reason}`, {
      httpStatus: 404,
      details: [{ field: 'path', message: canonical.reason }],
    });
  }
  if (canonical.path !== ctx.path) ctx.path = canonical.path;
  await next();
};

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
