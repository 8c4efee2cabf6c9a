import type { PassThrough } from 'node:stream';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, ElicitRequest, ElicitResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../../protocol/schemas/mcp.ts';
import type { GrantProvider } from './grants.ts';
import { loadedMcpSdk, loadMcpSdk, type McpSdk } from './sdk.ts';

export type McpStatus = 'connected' | 'connecting' | 'disconnected' | 'error';

/** What one connection is made from (the session's, a probe's or a restart's). */
export interface ConnectionSpec {
  name: string;
  config: McpServerConfig;
  /** Working directory of a stdio child (already resolved). */
  cwd?: string;
  startupTimeoutMs: number;
  toolTimeoutMs: number;
  /** Client identity sent in `initialize`. */
  client: { name: string; version: string };
  /** OAuth over the stored grant (remote servers that may use OAuth). */
  auth?: () => GrantProvider;
  /** Answers an elicitation request of the server (absent: declined). */
  elicit?: (req: ElicitRequest['params'], signal: AbortSignal) => Promise<ElicitResult>;
}

export interface CallOptions {
  signal: AbortSignal;
  onProgress?: (p: { progress: number; total?: number; message?: string }) => void;
}

const STDERR_TAIL = 2000;

/**
 * One MCP client connection built on the SDK's Client and its three transports. `start` connects
 * and lists the tools within the startup timeout and never throws: a failure is `status: error`
 * with `lastError`. A remote (http/sse) connection whose session drops reconnects once and retries
 * the call once, with the same tool name, and only if the server still offers that tool.
 */
export class McpConnection {
  status: McpStatus = 'disconnected';
  lastError?: string;
  /** The error behind the last failed start (probes tell 401 from other failures). */
  failure?: unknown;
  tools: Tool[] = [];
  private client?: Client;
  private transport?: Transport;
  private stderrTail = '';
  private starting?: Promise<void>;
  private stopped = false;
  /** The remote connection closed under us (the next call reconnects once). */
  private dropped = false;

  constructor(readonly spec: ConnectionSpec) {}

  get name(): string {
    return this.spec.name;
  }

  /** Whether its tools are offered: connected, or a remote session that dropped (a call reconnects). */
  get usable(): boolean {
    return this.status === 'connected' || (this.dropped && this.spec.config.transport !== 'stdio');
  }

  /** The stdio child's pid while connected. */
  get pid(): number | undefined {
    const Stdio = loadedMcpSdk()?.StdioClientTransport;
    return Stdio && this.transport instanceof Stdio ? (this.transport.pid ?? undefined) : undefined;
  }

  start(): Promise<void> {
    this.stopped = false;
    this.starting ??= this.connect().finally(() => (this.starting = undefined));
    return this.starting;
  }

  /** Waits for a start in progress. */
  async ready(): Promise<void> {
    await this.starting;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    // Closing first also ends a start in progress (a child still starting is killed, not waited for).
    await this.closeClient();
    await this.starting?.catch(() => undefined);
    await this.closeClient();
    this.status = 'disconnected';
    this.tools = [];
  }

  /** Marks the connection failed (e.g. its OAuth grant was reset) and closes it. */
  async fail(message: string): Promise<void> {
    await this.closeClient();
    this.tools = [];
    this.status = 'error';
    this.lastError = message;
  }

  async callTool(name: string, args: Record<string, unknown>, opts: CallOptions): Promise<CallToolResult> {
    const remote = this.spec.config.transport !== 'stdio';
    if (remote && this.dropped && !this.client) return this.reconnectAndCall(name, args, opts);
    if (this.status !== 'connected' || !this.client) throw new Error(`MCP server "${this.name}" is ${this.status}${this.lastError ? `: ${this.lastError}` : ''}`);
    try {
      return await this.call(this.client, name, args, opts);
    } catch (err) {
      if (!remote || opts.signal.aborted || !sessionDropped(err)) throw err;
      return this.reconnectAndCall(name, args, opts);
    }
  }

  /** A dropped remote session: reconnect once, check the same tool is still offered, retry once. */
  private async reconnectAndCall(name: string, args: Record<string, unknown>, opts: CallOptions): Promise<CallToolResult> {
    await this.closeClient();
    await this.connect();
    if (this.status !== 'connected' || !this.client) throw new Error(`MCP server "${this.name}" dropped its session and did not reconnect: ${this.lastError ?? 'unknown error'}`);
    if (!this.tools.some((t) => t.name === name)) throw new Error(`MCP server "${this.name}" reconnected without tool "${name}"; the call was not retried`);
    return this.call(this.client, name, args, opts);
  }

  private async call(client: Client, name: string, args: Record<string, unknown>, opts: CallOptions): Promise<CallToolResult> {
    // One signal per call: the SDK leaves its abort listener on the signal it is given, and a turn makes many calls.
    const own = new AbortController();
    const forward = () => own.abort(opts.signal.reason);
    if (opts.signal.aborted) forward();
    else opts.signal.addEventListener('abort', forward, { once: true });
    try {
      return await this.callOnce(client, name, args, opts, own.signal);
    } finally {
      opts.signal.removeEventListener('abort', forward);
    }
  }

  private async callOnce(client: Client, name: string, args: Record<string, unknown>, opts: CallOptions, signal: AbortSignal): Promise<CallToolResult> {
    const result = await client.callTool({ name, arguments: args }, undefined, {
      signal, timeout: this.spec.toolTimeoutMs, maxTotalTimeout: this.spec.toolTimeoutMs, resetTimeoutOnProgress: false,
      ...(opts.onProgress ? { onprogress: (p: { progress: number; total?: number; message?: string }) => opts.onProgress!(p) } : {}),
    });
    return result as CallToolResult;
  }

  private async connect(): Promise<void> {
    this.status = 'connecting';
    this.lastError = undefined;
    this.failure = undefined;
    this.dropped = false;
    this.stderrTail = '';
    const sdk = await loadMcpSdk();
    const client = new sdk.Client(this.spec.client, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(sdk.ElicitRequestSchema, async (req, extra) => {
      if (!this.spec.elicit || !('requestedSchema' in req.params)) return { action: 'decline' };
      return this.spec.elicit(req.params, extra.signal);
    });
    let transport: Transport;
    try {
      transport = this.transportOf(sdk);
    } catch (err) {
      this.status = 'error';
      this.lastError = message(err);
      return;
    }
    this.client = client;
    this.transport = transport;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.spec.startupTimeoutMs);
    try {
      await client.connect(transport, { timeout: this.spec.startupTimeoutMs, signal: timeout.signal });
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: this.spec.startupTimeoutMs, signal: timeout.signal });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor && tools.length < 10_000);
      if (this.stopped) throw new Error('stopped');
      this.tools = tools;
      this.status = 'connected';
      client.onclose = () => {
        if (this.client !== client || this.stopped) return;
        this.client = undefined;
        this.transport = undefined;
        // A remote server keeps offering its tools: the next call reconnects once.
        if (this.spec.config.transport === 'stdio') this.tools = [];
        this.dropped = true;
        this.status = 'error';
        this.lastError = `connection closed${this.stderrTail ? `: ${this.stderrTail.trim().slice(-500)}` : ''}`;
      };
    } catch (err) {
      this.failure = err;
      const text = timeout.signal.aborted ? `did not start within ${this.spec.startupTimeoutMs} ms` : message(err);
      await this.closeClient();
      this.tools = [];
      this.status = this.stopped ? 'disconnected' : 'error';
      this.lastError = this.stopped ? undefined : `${text}${this.stderrTail.trim() ? ` (stderr: ${this.stderrTail.trim().slice(-500)})` : ''}`;
    } finally {
      clearTimeout(timer);
    }
  }

  private transportOf(sdk: McpSdk): Transport {
    const c = this.spec.config;
    if (c.transport === 'stdio') {
      const t = new sdk.StdioClientTransport({ command: c.command, args: c.args ?? [], env: { ...(c.env ?? {}) }, ...(this.spec.cwd ? { cwd: this.spec.cwd } : {}), stderr: 'pipe' });
      (t.stderr as PassThrough | null)?.on('data', (d: Buffer) => (this.stderrTail = (this.stderrTail + d.toString('utf8')).slice(-STDERR_TAIL)));
      return t;
    }
    const headers: Record<string, string> = { ...(c.headers ?? {}) };
    if (c.bearerToken !== undefined) headers.Authorization = `Bearer ${c.bearerToken}`;
    const authProvider = this.spec.auth?.();
    const url = new URL(c.url);
    if (c.transport === 'http') return new sdk.StreamableHTTPClientTransport(url, { requestInit: { headers }, ...(authProvider ? { authProvider } : {}) });
    return new sdk.SSEClientTransport(url, {
      requestInit: { headers }, ...(authProvider ? { authProvider } : {}),
      eventSourceInit: { fetch: (u, init) => fetch(u, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) },
    });
  }

  private async closeClient(): Promise<void> {
    const client = this.client;
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    if (client) client.onclose = undefined;
    try {
      if (client) await client.close();
      else await transport?.close();
    } catch {
      /* closing a broken transport */
    }
  }
}

/** Whether a call failed because the remote session is gone (not because the tool failed). */
function sessionDropped(err: unknown): boolean {
  const sdk = loadedMcpSdk();
  if (sdk && err instanceof sdk.StreamableHTTPError) return err.code === 404 || err.code === 400;
  const text = message(err);
  return /session not found|unknown session|\(HTTP 404\)|not connected|connection closed|fetch failed|ECONNRESET|socket hang up|terminated/i.test(text);
}

const SIGN_IN = 'sign in with POST /api/v2/mcp/auth:begin';

function isSdkUnauthorized(err: unknown): err is Error {
  const sdk = loadedMcpSdk();
  return sdk !== undefined && err instanceof sdk.UnauthorizedError;
}

export function message(err: unknown): string {
  if (isSdkUnauthorized(err)) return `OAuth authorization required: ${err.message || SIGN_IN}`;
  const e = err as { message?: unknown; code?: unknown };
  const text = typeof e?.message === 'string' ? e.message : String(err);
  // A session's connection never registers a client itself (only auth:begin does).
  if (/must be saveable for dynamic registration/.test(text)) return `OAuth authorization required: ${SIGN_IN}`;
  return text.slice(0, 2000);
}

export function isUnauthorized(err: unknown): boolean {
  if (isSdkUnauthorized(err)) return true;
  const code = (err as { code?: unknown })?.code;
  return code === 401 || /\b401\b|unauthorized/i.test(message(err));
}
