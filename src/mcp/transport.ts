import type { ChildProcess } from 'node:child_process';
import type { PassThrough } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../../protocol/schemas/mcp.ts';
import type { GrantProvider } from './grants.ts';
import type { McpSdk } from './sdk.ts';

/** How a stdio child ended: `code` when it exited, `signal` when a signal killed it. */
export interface ChildExit { code: number | null; signal: NodeJS.Signals | null }

export interface TransportHooks {
  /** Working directory of a stdio child (already resolved). */
  cwd?: string;
  auth?: GrantProvider;
  /** A chunk of the stdio child's stderr. */
  stderr(chunk: string): void;
  /** The stdio child exited (before the transport reports the close). */
  exited(exit: ChildExit): void;
}

/** The SDK transport of a server config: a stdio child, streamable HTTP or SSE. */
export function transportOf(sdk: McpSdk, c: McpServerConfig, hooks: TransportHooks): Transport {
  if (c.transport === 'stdio') {
    const t = new sdk.StdioClientTransport({ command: c.command, args: c.args ?? [], env: { ...(c.env ?? {}) }, ...(hooks.cwd ? { cwd: hooks.cwd } : {}), stderr: 'pipe' });
    (t.stderr as PassThrough | null)?.on('data', (d: Buffer) => hooks.stderr(d.toString('utf8')));
    watchExit(t, hooks.exited);
    return t;
  }
  const headers: Record<string, string> = { ...(c.headers ?? {}) };
  if (c.bearerToken !== undefined) headers.Authorization = `Bearer ${c.bearerToken}`;
  const url = new URL(c.url);
  const authProvider = hooks.auth;
  if (c.transport === 'http') return new sdk.StreamableHTTPClientTransport(url, { requestInit: { headers }, ...(authProvider ? { authProvider } : {}) });
  return new sdk.SSEClientTransport(url, {
    requestInit: { headers }, ...(authProvider ? { authProvider } : {}),
    eventSourceInit: { fetch: (u, init) => fetch(u, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) },
  });
}

/**
 * The SDK's stdio transport reports a closed child without its exit code or signal, which is what a user
 * needs in `last_error`. Its child process is a private field, so this reads it once `start` resolved
 * (spawned) and listens for `exit`, which Node emits before the `close` the transport reports.
 */
function watchExit(t: Transport, exited: (exit: ChildExit) => void): void {
  const start = t.start.bind(t);
  t.start = async () => {
    await start();
    const child = (t as unknown as { _process?: ChildProcess })._process;
    child?.once('exit', (code, signal) => exited({ code, signal }));
  };
}

export type ProgressParams = { progress: number; total?: number; message?: string };

function progressOf(m: JSONRPCMessage): { token: string | number; params: ProgressParams } | undefined {
  if (!('method' in m) || m.method !== 'notifications/progress' || 'id' in m) return undefined;
  const p = m.params as (ProgressParams & { progressToken?: string | number }) | undefined;
  if (p?.progressToken === undefined || typeof p.progress !== 'number') return undefined;
  return { token: p.progressToken, params: { progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message !== undefined ? { message: p.message } : {}) } };
}

/**
 * Progress notifications of our calls, taken off the transport as they are read. The SDK dispatches a
 * notification a microtask after reading it but a response at once, and drops a call's progress handler
 * with its response, so a last progress notification read together with the result was lost. Here each
 * call gets its own token and its notifications are delivered in read order, before the result.
 */
export class ProgressRouter {
  private readonly handlers = new Map<string, (p: ProgressParams) => void>();
  private next = 0;

  /** A token for one call; `done` forgets it (late notifications are then passed to the SDK, which ignores them). */
  register(handler: (p: ProgressParams) => void): { token: string; done(): void } {
    const token = `svc-${++this.next}`;
    this.handlers.set(token, handler);
    return { token, done: () => this.handlers.delete(token) };
  }

  /** Wraps the transport's `onmessage` (after `Client.connect` set it). */
  install(transport: Transport): void {
    const inner = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const p = progressOf(message);
      const handler = p ? this.handlers.get(String(p.token)) : undefined;
      if (handler) return handler(p!.params);
      inner?.(message, extra as never);
    };
  }
}
