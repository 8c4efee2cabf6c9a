import { Readable } from 'node:stream';
import type Koa from 'koa';
import type { Logger } from '../lib/logger.ts';
import { Codes } from '../../protocol/codes.ts';

/** A list entry left out because it could not be serialised (see `unreadable` in list data). */
export interface UnreadableEntry {
  id: string | null;
  code: number;
  msg: string;
}

type Envelope = { code: number; msg: string; data: unknown; request_id: string; details?: unknown };

function isJsonBody(body: unknown): body is Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Buffer.isBuffer(body) && !(body instanceof Readable) && !ArrayBuffer.isView(body);
}

function stringify(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

function reasonOf(err: unknown): string {
  const m = (err as Error)?.message ?? String(err);
  return /call stack/i.test(m) ? 'value nested too deeply' : /string length/i.test(m) ? 'value too large' : m;
}

/**
 * Turns an object body into JSON text inside the middleware stack, so a value
 * that cannot be serialised (a stored record nested too deeply) still gets an
 * envelope instead of koa's bare 500. A list keeps its readable entries and
 * names the others in `data.unreadable`; anything else answers 50003.
 */
export function jsonBody(ctx: Koa.Context, log: Logger): void {
  const body = ctx.body;
  if (!isJsonBody(body)) return;
  let text: string | undefined;
  let failure: unknown;
  try {
    text = JSON.stringify(body);
  } catch (err) {
    failure = err;
  }
  if (text === undefined) {
    log.error({ err: failure, method: ctx.method, path: ctx.path, request_id: ctx.state.requestId }, 'response body cannot be serialised');
    text = stringify(withoutUnreadable(body as Envelope, reasonOf(failure))) ?? unreadableEnvelope(body as Envelope, reasonOf(failure));
  }
  ctx.type = 'application/json';
  ctx.body = text;
}

/** The envelope with list entries that cannot be serialised moved to `data.unreadable`; undefined when it is no list. */
function withoutUnreadable(env: Envelope, reason: string): Envelope | undefined {
  const data = env?.data as Record<string, unknown> | null | undefined;
  if (!data || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const unreadable: UnreadableEntry[] = [];
  const keep = (items: unknown[]) => items.filter((item) => {
    if (stringify(item) !== undefined) return true;
    const id = (item as { id?: unknown })?.id;
    unreadable.push({ id: typeof id === 'string' ? id : null, code: Codes.PERSISTENCE, msg: `stored record cannot be read: ${reason}` });
    return false;
  });
  let next: Record<string, unknown> | undefined;
  if (Array.isArray(data.items)) next = { ...data, items: keep(data.items) };
  else if (Array.isArray(data.groups)) {
    next = { ...data, groups: data.groups.map((g) => (g && Array.isArray(g.sessions) ? { ...g, sessions: keep(g.sessions) } : g)) };
  }
  if (!next || !unreadable.length) return undefined;
  return { ...env, data: { ...next, unreadable } };
}

/** The last resort: the envelope without its data or details. */
function unreadableEnvelope(env: Envelope, reason: string): string {
  const failed = typeof env?.code === 'number' && env.code !== Codes.OK;
  return JSON.stringify({
    code: failed ? env.code : Codes.PERSISTENCE,
    msg: failed && typeof env.msg === 'string' ? env.msg : `stored record cannot be read: ${reason}`,
    data: null,
    request_id: typeof env?.request_id === 'string' ? env.request_id : '',
  });
}
