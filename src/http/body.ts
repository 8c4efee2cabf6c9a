/**
 * Request bodies: JSON with co-body, multipart/form-data with formidable. (koa-body wrapped the
 * same two and loaded zod v4 to validate its own options: 22 MB of RSS at start.)
 */
import * as coBody from 'co-body';
import type formidable from 'formidable';
import type { Part } from 'formidable';
import type Koa from 'koa';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const JSON_TYPES = ['application/json', 'application/json-patch+json', 'application/vnd.api+json', 'application/csp-report', 'application/reports+json'];

export interface JsonBodyOptions {
  limit: string;
  /** Maps a parse failure (malformed, too large) to the error the request answers. */
  onError: (err: Error & { status?: number }) => never;
}

/** Parses a JSON body of POST, PUT and PATCH into `ctx.request.body` (objects and arrays only). */
export function jsonBody(opts: JsonBodyOptions): Koa.Middleware {
  return async (ctx, next) => {
    if (BODY_METHODS.has(ctx.method) && ctx.is(JSON_TYPES)) {
      try {
        (ctx.request as { body?: unknown }).body = await coBody.json(ctx, { limit: opts.limit, strict: true });
      } catch (err) {
        opts.onError(asError(err));
      }
    }
    await next();
  };
}

export interface MultipartParseOptions {
  formidable: formidable.Options;
  /** Sees every part before formidable handles it. */
  onPart?: (part: Part) => void;
}

export interface MultipartBody {
  fields: Record<string, string | string[]>;
  files: Record<string, formidable.File | formidable.File[]>;
}

/** Parses a multipart body; a name given once maps to its value, a repeated name to all of them. */
export async function parseMultipart(ctx: Koa.Context, opts: MultipartParseOptions): Promise<MultipartBody> {
  // Loaded on the first multipart request: most daemons never see one.
  const { default: createForm } = await import('formidable');
  const form = createForm({ multiples: true, ...opts.formidable });
  if (opts.onPart) {
    const handle = (form as unknown as { _handlePart(part: Part): void })._handlePart.bind(form);
    form.onPart = (part) => {
      opts.onPart!(part);
      handle(part);
    };
  }
  const [fields, files] = await form.parse(ctx.req);
  return { fields: single(fields), files: single(files) };
}

function single<T>(entries: Record<string, T[] | undefined>): Record<string, T | T[]> {
  const out: Record<string, T | T[]> = {};
  for (const [key, value] of Object.entries(entries)) {
    if (value !== undefined) out[key] = value.length === 1 ? value[0]! : value;
  }
  return out;
}

export function asError(err: unknown): Error & { status?: number; code?: unknown } {
  return err instanceof Error ? err : new Error(String(err));
}
