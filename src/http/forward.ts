import type Koa from 'koa';
import { Codes } from '../../protocol/codes.ts';
import { ApiError } from '../../protocol/errors.ts';
import type { Logger } from '../lib/logger.ts';
import type { NodeDirectory } from '../nodes/directory.ts';
import type { OwnerLookup } from '../nodes/types.ts';
import { bodyError, JSON_LIMIT_MB } from './register.ts';
import { endToEnd, relay, RelayError, type RelayAnswer } from './relay.ts';
import type { RouteDef } from './route.ts';

/** Set on a request one node forwards to another (its value: the sender's node id); such a request is never forwarded again. */
export const FORWARDED_HEADER = 'x-svc-code-forwarded';

/**
 * The commands that act on a session's live runtime (its turn loop, its pending interactions, its tasks): sent to a
 * node that does not own the session, they run on the owner (docs/scale-out.md "Commands on any node"). Reads and the
 * commands that only journal (archive, title, ...) are served by any node.
 */
export const FORWARDED_OPERATIONS: readonly string[] = [
  'createPrompt', 'steerPrompts', 'steerPrompt', 'abortPrompt',
  'resolveApproval', 'answerQuestion', 'dismissQuestion',
  'abortSessionTurn', 'compactSession', 'undoSessionTurns', 'btwSession',
  'cancelTask', 'detachTask', 'activateSkill',
  'updateSessionProfile',
];

// The request headers the owner needs to answer as this node would: the token, the body's type, the request id.
const PASSED_HEADERS = ['authorization', 'content-type', 'content-encoding', 'accept', 'accept-language'];

const BODY_LIMIT = JSON_LIMIT_MB * 1024 * 1024;

export interface ForwardDeps {
  /** This node's id: the value of FORWARDED_HEADER on what it forwards. */
  nodeId: string;
  owners: OwnerLookup;
  nodes: Pick<NodeDirectory, 'urlOf'>;
  /** The server's routes: the forwarded operations' paths are read from their declarations. */
  routes: readonly RouteDef[];
  log: Logger;
}

/**
 * In front of the routes, after the token check: a forwarded command whose session another node owns is sent to
 * that node, and its answer (status, headers, body) returned unchanged. Anything else goes on to the routes.
 */
export function forwardMiddleware(deps: ForwardDeps): Koa.Middleware {
  const match = commandMatcher(deps.routes);
  return async (ctx, next) => {
    const sessionId = ctx.get(FORWARDED_HEADER) ? undefined : match(ctx.method, ctx.path);
    const owner = sessionId && (await deps.owners.ownerElsewhere(sessionId));
    if (!owner) return next();
    const answer = await forward(ctx, owner, deps);
    ctx.status = answer.status;
    ctx.body = answer.body;
    for (const [name, value] of Object.entries(endToEnd(answer.headers))) if (value !== undefined) ctx.set(name, value);
  };
}

/** The session id of a forwarded command (method and canonical path, before the `:action` rewrite), or undefined. */
export function commandMatcher(routes: readonly RouteDef[]): (method: string, path: string) => string | undefined {
  const patterns = FORWARDED_OPERATIONS.map((id) => {
    const def = routes.find((r) => r.operationId === id);
    if (!def) throw new Error(`forwarded operation ${id} is not a route`);
    return { method: def.method, re: pathPattern(def.path) };
  });
  return (method, path) => {
    for (const p of patterns) {
      if (p.method !== method) continue;
      const m = p.re.exec(path);
      if (m) return m.groups!.session_id;
    }
    return undefined;
  };
}

/** `/api/v1/sessions/{session_id}/prompts/{prompt_id}:abort` as an anchored pattern; each parameter one segment. */
function pathPattern(path: string): RegExp {
  const source = path
    .split(/(\{[a-z_]+\})/)
    .map((part) => (part.startsWith('{') ? `(?<${part.slice(1, -1)}>[^/:]+)` : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

async function forward(ctx: Koa.Context, owner: string, deps: ForwardDeps): Promise<RelayAnswer> {
  const base = await deps.nodes.urlOf(owner);
  if (!base) throw unreachable(owner, 'it is not in journal_nodes, or its heartbeat is older than the lease time (stopped or dead)');
  const body = await boundedBody(ctx);
  const headers: Record<string, string> = { [FORWARDED_HEADER]: deps.nodeId, 'x-request-id': ctx.state.requestId };
  for (const name of PASSED_HEADERS) if (ctx.get(name)) headers[name] = ctx.get(name);
  try {
    const answer = await relay({ method: ctx.method, base, url: ctx.url, headers, body });
    deps.log.debug({ owner, path: ctx.path, status: answer.status }, 'command forwarded to the session\'s owner');
    return answer;
  } catch (err) {
    if (!(err instanceof RelayError)) throw err;
    deps.log.warn({ err, owner, url: base, path: ctx.path }, 'the session\'s owner did not answer a forwarded command');
    throw unreachable(owner, err.connected ? `the connection failed before it answered (the command may have run there): ${err.message}` : err.message);
  }
}

/** 50001 with `details.reason` `owner_unreachable`: the client may retry (the lease moves when the owner is gone). */
function unreachable(nodeId: string, why: string): ApiError {
  return new ApiError(Codes.INTERNAL, `the node running this session (${nodeId}) cannot be reached: ${why}`, {
    details: { reason: 'owner_unreachable', node_id: nodeId },
  });
}

/** The request body as received, refused (40001, as the routes refuse it) past the routes' JSON limit. */
async function boundedBody(ctx: Koa.Context): Promise<Buffer> {
  if (Number(ctx.get('content-length') || 0) > BODY_LIMIT) bodyError(Object.assign(new Error('too large'), { status: 413 }));
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > BODY_LIMIT) bodyError(Object.assign(new Error('too large'), { status: 413 }));
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
