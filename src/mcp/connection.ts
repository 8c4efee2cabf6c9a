import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, ElicitRequest, ElicitResult, ReadResourceResult, Root, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../../protocol/schemas/mcp.ts';
import { callable, callOnce, runsTaskTools, type CallOptions } from './calls.ts';
import type { GrantProvider } from './grants.ts';
import { Reconnects, type ReconnectPolicy } from './reconnect.ts';
import { loadedMcpSdk, loadMcpSdk } from './sdk.ts';
import { ProgressRouter, transportOf, type ChildExit } from './transport.ts';
import { StderrExcerpt } from './stderr.ts';

export type { CallOptions } from './calls.ts';
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
  /** The roots offered to the server (`roots` capability; absent: none offered). */
  roots?: () => Promise<Root[]>;
  /** Retries of a remote server that failed or dropped (absent: none, as for probes). */
  reconnect?: ReconnectPolicy;
  /** Logs what the connection cannot report as its status (a failed tool-list refresh). */
  warn?: (msg: string, err: unknown) => void;
}


/**
 * One MCP client connection built on the SDK's Client and its three transports. `start` connects
 * and lists the tools within the startup timeout and never throws: a failure is `status: error`
 * with `lastError`. A remote (http/sse) connection whose session drops reconnects when a call needs
 * it (the call is retried once, with the same tool name, only if the server still offers that tool)
 * and in the background with a bounded backoff (`spec.reconnect`), so a server that comes back
 * recovers by itself.
 */
export class McpConnection {
  status: McpStatus = 'disconnected';
  lastError?: string;
  /** The error behind the last failed start (probes tell 401 from other failures). */
  failure?: unknown;
  /** Every tool the server lists. */
  tools: Tool[] = [];
  /** Bumped when the tool list changes (`tools/list_changed`, a reconnect). */
  toolsVersion = 0;
  private client?: Client;
  private transport?: Transport;
  private readonly progress = new ProgressRouter();
  private readonly stderr = new StderrExcerpt();
  private exit?: ChildExit;
  private starting?: Promise<void>;
  private stopped = false;
  /** The remote connection closed under us (the next call reconnects once). */
  private dropped = false;
  private readonly retries: Reconnects;
  /** A tool-list refresh in progress (`tools/list_changed`): the next model request waits for it. */
  private refreshing?: Promise<void>;

  constructor(readonly spec: ConnectionSpec) {
    this.retries = new Reconnects(spec.reconnect, () => void this.start());
  }

  get name(): string {
    return this.spec.name;
  }

  private get remote(): boolean {
    return this.spec.config.transport !== 'stdio';
  }

  /** Whether its tools are offered: connected, or a remote session that dropped (a call reconnects). */
  get usable(): boolean {
    return this.status === 'connected' || (this.dropped && this.remote);
  }

  /** The tools that can be called (task-required tools only when the server runs tasks). */
  get offered(): Tool[] {
    const tasks = runsTaskTools(this.client);
    return this.tools.filter((t) => callable(t, tasks));
  }

  /** Whether the server offers resources (ReadMcpResource reaches it). */
  get hasResources(): boolean {
    return this.usable && this.client?.getServerCapabilities()?.resources !== undefined;
  }

  /** The stdio child's pid while connected. */
  get pid(): number | undefined {
    const Stdio = loadedMcpSdk()?.StdioClientTransport;
    return Stdio && this.transport instanceof Stdio ? (this.transport.pid ?? undefined) : undefined;
  }

  /** Whether `start` was ever asked for since the last stop (lazy sessions start on their first turn). */
  get started(): boolean {
    return this.status !== 'disconnected' || this.starting !== undefined;
  }

  start(): Promise<void> {
    this.stopped = false;
    this.retries.cancel();
    this.starting ??= this.connect().finally(() => (this.starting = undefined)).then(() => this.afterStart());
    return this.starting;
  }

  /** Waits for a start in progress. */
  async ready(): Promise<void> {
    await this.starting;
  }

  /** Waits for a tool-list refresh in progress (not for a background reconnect). */
  async toolsSettled(): Promise<void> {
    await this.refreshing;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.retries.cancel();
    // Closing first also ends a start in progress (a child still starting is killed, not waited for).
    await this.closeClient();
    await this.starting?.catch(() => undefined);
    await this.closeClient();
    this.status = 'disconnected';
    this.lastError = undefined;
    this.setTools([]);
  }

  /** Marks the connection failed (e.g. its OAuth grant was reset) and closes it; no retries. */
  async fail(message: string): Promise<void> {
    this.retries.cancel();
    await this.closeClient();
    this.setTools([]);
    this.status = 'error';
    this.lastError = message;
  }

  /** Tells the server its roots changed (`notifications/roots/list_changed`). */
  async rootsChanged(): Promise<void> {
    if (this.status === 'connected' && this.client && this.spec.roots) await this.client.sendRootsListChanged();
  }

  async callTool(name: string, args: Record<string, unknown>, opts: CallOptions): Promise<CallToolResult> {
    if (this.remote && this.dropped && !this.client) return this.reconnectAndCall(name, args, opts);
    if (this.status !== 'connected' || !this.client) throw new Error(`MCP server "${this.name}" is ${this.status}${this.lastError ? `: ${this.lastError}` : ''}`);
    try {
      return await callOnce(this.client, this.progress, this.tools.find((t) => t.name === name), name, args, opts, this.spec.toolTimeoutMs);
    } catch (err) {
      if (!this.remote || opts.signal.aborted || !sessionDropped(err)) throw err;
      return this.reconnectAndCall(name, args, opts);
    }
  }

  /** resources/read of the server. */
  async readResource(uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
    if (this.remote && this.dropped && !this.client) await this.reconnect();
    if (this.status !== 'connected' || !this.client) throw new Error(`MCP server "${this.name}" is ${this.status}${this.lastError ? `: ${this.lastError}` : ''}`);
    return this.client.readResource({ uri }, { signal, timeout: this.spec.toolTimeoutMs });
  }

  /** A dropped remote session: reconnect once, check the same tool is still offered, retry once. */
  private async reconnectAndCall(name: string, args: Record<string, unknown>, opts: CallOptions): Promise<CallToolResult> {
    await this.reconnect();
    if (this.status !== 'connected' || !this.client) throw new Error(`MCP server "${this.name}" dropped its session and did not reconnect: ${this.lastError ?? 'unknown error'}`);
    const tool = this.offered.find((t) => t.name === name);
    if (!tool) throw new Error(`MCP server "${this.name}" reconnected without tool "${name}"; the call was not retried`);
    return callOnce(this.client, this.progress, tool, name, args, opts, this.spec.toolTimeoutMs);
  }

  private async reconnect(): Promise<void> {
    if (!this.starting) await this.closeClient();
    await this.start();
  }

  /** After a start: a remote server that failed (not for want of a sign-in) is tried again later. */
  private afterStart(): void {
    if (this.status === 'connected') this.retries.reset();
    else if (this.status === 'error' && this.remote && !this.stopped && !isUnauthorized(this.failure)) this.lastError = this.retries.schedule(this.lastError);
  }

  private setTools(tools: Tool[]): void {
    this.tools = tools;
    this.toolsVersion++;
  }

  private async listTools(client: Client, opts: { timeout: number; signal?: AbortSignal }): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, opts);
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor && tools.length < 10_000);
    return tools;
  }

  /** `notifications/tools/list_changed`: the list is read again (the next model request sees it). */
  private async refreshTools(client: Client): Promise<void> {
    try {
      const tools = await this.listTools(client, { timeout: this.spec.startupTimeoutMs });
      if (this.client === client) this.setTools(tools);
    } catch (err) {
      this.spec.warn?.(`MCP server "${this.name}": reading its changed tool list failed`, err);
    }
  }

  private async newClient(): Promise<Client> {
    const sdk = await loadMcpSdk();
    const client = new sdk.Client(this.spec.client, {
      capabilities: { elicitation: { form: {} }, ...(this.spec.roots ? { roots: { listChanged: true } } : {}) },
    });
    client.setRequestHandler(sdk.ElicitRequestSchema, async (req, extra) => {
      if (!this.spec.elicit || !('requestedSchema' in req.params)) return { action: 'decline' };
      return this.spec.elicit(req.params, extra.signal);
    });
    if (this.spec.roots) {
      const roots = this.spec.roots;
      client.setRequestHandler(sdk.ListRootsRequestSchema, async () => ({ roots: await roots() }));
    }
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => {
      const run = this.refreshTools(client).finally(() => {
        if (this.refreshing === run) this.refreshing = undefined;
      });
      this.refreshing = run;
      return run;
    });
    return client;
  }

  private async connect(): Promise<void> {
    this.status = 'connecting';
    this.lastError = undefined;
    this.failure = undefined;
    this.dropped = false;
    this.stderr.clear();
    this.exit = undefined;
    const sdk = await loadMcpSdk();
    const client = await this.newClient();
    let transport: Transport;
    try {
      transport = transportOf(sdk, this.spec.config, {
        ...(this.spec.cwd ? { cwd: this.spec.cwd } : {}), ...(this.spec.auth ? { auth: this.spec.auth() } : {}),
        stderr: (chunk) => this.stderr.push(chunk),
        exited: (exit) => (this.exit = exit),
      });
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
      this.progress.install(transport);
      const tools = await this.listTools(client, { timeout: this.spec.startupTimeoutMs, signal: timeout.signal });
      if (this.stopped) throw new Error('stopped');
      this.setTools(tools);
      this.status = 'connected';
      client.onclose = () => this.closed(client);
    } catch (err) {
      this.failure = err;
      const text = timeout.signal.aborted ? `did not start within ${this.spec.startupTimeoutMs} ms` : message(err);
      await this.closeClient();
      this.setTools([]);
      this.status = this.stopped ? 'disconnected' : 'error';
      this.lastError = this.stopped ? undefined : this.describe(text);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The connection closed under us: a stdio child ended; a remote session closed (retried). */
  private closed(client: Client): void {
    if (this.client !== client || this.stopped) return;
    this.client = undefined;
    this.transport = undefined;
    this.status = 'error';
    if (!this.remote) {
      this.setTools([]);
      this.lastError = this.describe('the server process ended');
      return;
    }
    // A remote server keeps offering its tools: the next call reconnects, and so does the backoff.
    this.dropped = true;
    this.lastError = this.retries.schedule('connection closed');
  }

  /** A failure as `last_error`: for a stdio child, how it ended (exit code or signal), then its stderr (both ends). */
  private describe(text: string): string {
    const how = this.exit ? (this.exit.signal ? `killed by ${this.exit.signal}` : `exited with code ${this.exit.code}`) : undefined;
    const stderr = this.stderr.text();
    if (!how) return `${text}${stderr ? ` (stderr: ${stderr})` : ''}`;
    return `server process ${how}${/closed|ended/i.test(text) ? '' : ` (${text})`}${stderr ? `; stderr: ${stderr}` : ''}`;
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
  if (err === undefined) return false;
  if (isSdkUnauthorized(err)) return true;
  const code = (err as { code?: unknown })?.code;
  return code === 401 || /\b401\b|unauthorized/i.test(message(err));
}
