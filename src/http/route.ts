import type Koa from 'koa';
import * as v from 'valibot';
import type { Code } from '../../protocol/codes.ts';

type AnySchema = v.GenericSchema<any, any>;
type Out<S> = S extends AnySchema ? v.InferOutput<S> : undefined;

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HandlerInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  ctx: Koa.Context;
}

/**
 * A route declared once, as data: it validates input, types the handler and
 * feeds `/openapi.json`. `path` is written as in the spec: `{param}` slots and
 * `:action` suffixes (`/api/v1/sessions/{session_id}:archive`).
 */
export interface RouteDef<PS extends AnySchema | undefined = any, QS extends AnySchema | undefined = any, BS extends AnySchema | undefined = any> {
  method: Method;
  path: string;
  operationId: string;
  summary: string;
  tags?: string[];
  params?: PS;
  query?: QS;
  body?: BS;
  /** Schema of `data` in the success envelope (documentation). */
  data?: AnySchema;
  /** Business codes the route can answer with, besides 0. */
  codes?: Code[];
  /** false = no bearer token needed. */
  auth?: boolean;
  /** HTTP status on success (201 for creations, 204 for deletions with no body). */
  successStatus?: number;
  /** Envelope code on success (the question dismiss route answers 40909). */
  successCode?: number;
  /** The handler writes ctx.body itself (binary, zip); no envelope. */
  raw?: boolean;
  /** Parse the body as multipart/form-data instead of JSON; the body schema sees fields and file parts together. */
  multipart?: MultipartOptions;
  handler: (input: HandlerInput<Out<PS>, Out<QS>, Out<BS>>) => unknown | Promise<unknown>;
}

export interface MultipartOptions {
  /** Temp files go in a per-request directory below this one, removed when the request ends. */
  uploadDir: string;
  /** Largest file data accepted, enforced while streaming (40001 beyond it). */
  maxFileBytes: number;
}

/** Identity helper that infers handler types from the schemas. */
export function route<PS extends AnySchema | undefined = undefined, QS extends AnySchema | undefined = undefined, BS extends AnySchema | undefined = undefined>(
  def: RouteDef<PS, QS, BS>,
): RouteDef<PS, QS, BS> {
  return def;
}

const ACTION_MARK = '@';

/**
 * Spec path -> router path: `{id}` -> `:id`, `x:action` -> `x/@action`, and
 * `{*path}` -> `*path` (a slot spanning several segments, e.g. a file path).
 */
export function toRouterPath(specPath: string): string {
  return specPath
    .split('/')
    .map((seg) => {
      const colon = seg.lastIndexOf(':');
      const [base, action] = colon >= 0 ? [seg.slice(0, colon), seg.slice(colon + 1)] : [seg, undefined];
      const b = base.replace(/\{\*([a-z_]+)\}/gi, '*$1').replace(/\{([a-z_]+)\}/gi, ':$1');
      if (action === undefined) return b;
      const a = action.replace(/\{([a-z_]+)\}/gi, ':$1');
      return b ? `${b}/${ACTION_MARK}${a}` : `${ACTION_MARK}${a}`;
    })
    .join('/');
}

/**
 * Request path -> router path: the last segment's `:action` suffix becomes
 * `/@action`, so `sessions/abc:fork` routes like `sessions/abc/@fork`.
 */
export function rewriteActionPath(path: string): { path: string; action?: string } {
  const slash = path.lastIndexOf('/');
  const last = path.slice(slash + 1);
  const colon = last.lastIndexOf(':');
  if (colon < 0) return { path };
  const base = last.slice(0, colon);
  const action = last.slice(colon + 1);
  const head = path.slice(0, slash + 1);
  return { path: base ? `${head}${base}/${ACTION_MARK}${action}` : `${head}${ACTION_MARK}${action}`, action };
}
