import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { JournalEvent } from '../../journal/types.ts';
import type { SessionIndex, SessionRecord } from '../../projections/session-index/session-index.ts';
import type { WorkspaceRegistry } from '../../projections/workspaces/workspace-registry.ts';
import { Codes } from '../../protocol/codes.ts';
import { notFound } from '../../protocol/errors.ts';
import type { McpServerConfig, McpServerV1 } from '../../protocol/schemas/mcp.ts';
import type { Logger } from '../lib/logger.ts';
import type { ConfigService } from '../config/service.ts';
import type { ToolOutcome } from '../engine/tools.ts';
import { allowedRoots } from '../fs/confine.ts';
import type { QuestionService } from '../questions/service.ts';
import type { ExternalCall, ExternalTool, ExternalTools } from '../tools/external.ts';
import type { WorkspaceDirs } from '../workspaces/extra-dirs.ts';
import { canonicalUrl, loadCatalog, type Catalog, type CatalogEntry } from './catalog.ts';
import { McpConnection, message, type ConnectionSpec } from './connection.ts';
import { loadMcpSdk } from './sdk.ts';
import { elicitThroughQuestions } from './elicitation.ts';
import { GrantProvider, GrantStore } from './grants.ts';
import { parseReadResource, READ_MCP_RESOURCE, readResourceSpec, resourceOutcome } from './read-resource.ts';
import { DEFAULT_RECONNECT, type ReconnectPolicy } from './reconnect.ts';
import { toToolOutcome, type ResultSite } from './results.ts';
import { SessionServers } from './session-servers.ts';
import { known } from '../../protocol/events/known.ts';

export interface McpDeps {
  home: string;
  config: ConfigService;
  sessions: SessionIndex;
  workspaces: WorkspaceRegistry;
  questions: QuestionService;
  grants: GrantStore;
  log: Logger;
  /** The workspaces' additional directories (offered as roots besides the session's root). */
  workspaceDirs: WorkspaceDirs;
  /** Background reconnects of remote servers (default DEFAULT_RECONNECT). */
  reconnect?: ReconnectPolicy;
  version: string;
  /** The daemon's OAuth redirect (its own loopback callback; known once it listens). */
  redirectUrl: () => string;
}

/** Whether a remote server may use OAuth: no static token unless `auth` says `oauth`, and not `auth: none`. */
export function oauthCandidate(c: McpServerConfig): boolean {
  if (c.transport === 'stdio' || c.auth === 'none') return false;
  if (c.auth === 'oauth') return true;
  return !hasStaticToken(c);
}

export function hasStaticToken(c: McpServerConfig): boolean {
  if (c.transport === 'stdio') return false;
  return c.bearerToken !== undefined || Object.keys(c.headers ?? {}).some((h) => h.toLowerCase() === 'authorization');
}

export function grantKey(e: Pick<CatalogEntry, 'name' | 'config'>): string | undefined {
  const url = canonicalUrl(e.config);
  return url ? GrantStore.keyOf(e.name, url) : undefined;
}

/**
 * MCP servers of live sessions (docs/mcp.md "Lifecycle"): a session's servers start when its
 * runtime loads (with the layers its workspace's trust allows) and stop when it unloads or the
 * daemon stops. Their tools reach the executor as `mcp__<server>__<tool>` (ExternalTools).
 */
export class McpService implements ExternalTools {
  private readonly sets = new Map<string, SessionServers>();
  private closing = false;

  constructor(private readonly deps: McpDeps) {}

  /** The trusted project root for `cwd` (the registered workspace containing it), if any. */
  trustedRootFor(cwd: string | undefined): string | undefined {
    if (!cwd) return undefined;
    const abs = path.resolve(cwd);
    let best: { root: string; trusted: boolean } | undefined;
    for (const w of this.deps.workspaces.all()) {
      if ((abs === w.root || abs.startsWith(w.root.endsWith(path.sep) ? w.root : w.root + path.sep)) && (!best || w.root.length > best.root.length)) best = w;
    }
    return best?.trusted ? best.root : undefined;
  }

  catalog(cwd?: string): Promise<Catalog> {
    return loadCatalog(this.deps.home, this.trustedRootFor(cwd));
  }

  private sessionRoot(s: SessionRecord): string | undefined {
    const w = this.deps.workspaces.get(s.workspace_id);
    return w?.trusted ? w.root : undefined;
  }

  // ---- lifecycle (RuntimeLifecycle of the engine) ----

  /**
   * A session's runtime loaded: its catalog is read, its servers are listed (`disconnected`) and start on
   * the session's first turn (`ready`), so a client reading a cold session starts no server.
   */
  loaded(session: SessionRecord): void {
    if (this.closing || this.sets.has(session.id)) return;
    const set = new SessionServers(session.id, session.cwd);
    this.sets.set(session.id, set);
    set.built = this.build(set, session).catch((err) => this.deps.log.warn({ err, session: session.id }, 'reading the MCP layers failed'));
  }

  /** A session's runtime unloaded: its servers stop (children end). */
  async unloaded(sessionId: string): Promise<void> {
    const set = this.sets.get(sessionId);
    if (!set) return;
    this.sets.delete(sessionId);
    set.closed = true;
    await set.built;
    await Promise.all([...set.conns.values()].map((c) => c.stop()));
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.sets.keys()].map((id) => this.unloaded(id)));
  }

  private async build(set: SessionServers, session: SessionRecord): Promise<void> {
    const catalog = await loadCatalog(this.deps.home, this.sessionRoot(session));
    for (const p of catalog.problems) this.deps.log.warn(p);
    const { run, conflicts } = catalog.runtimeSet();
    if (set.closed) return;
    await set.apply(run, conflicts, (e) => this.connectionFor(e, set));
  }

  /**
   * Subscriber of committed events (src/app/subscribers.ts): trust changes reload project layers;
   * a plugin installed, enabled, disabled or removed reloads the plugin layer of every live session.
   */
  readonly onCommitted = (events: JournalEvent[]): Promise<unknown> | void => {
    const ids = new Set(events.filter((e) => known(e).type === 'workspace.trust_changed').map((e) => (e.payload as { workspace_id: string }).workspace_id));
    if (events.some((e) => known(e).type === 'event.plugin.changed')) return this.resync(() => true);
    if (ids.size) return Promise.all([...ids].map((id) => this.trustChanged(id)));
  };

  /** `workspace.trust_changed`: the live sessions of that workspace gain or lose the project layers. */
  trustChanged(workspaceId: string): Promise<void> {
    return this.resync((s) => s.workspace_id === workspaceId);
  }

  /** The user file changed (a v2 write): every live session gains, loses or restarts the servers it names. */
  catalogChanged(): Promise<void> {
    return this.resync(() => true);
  }

  /** A trusted workspace's `.mcp.json` or `.svc-code/mcp.json` changed (the config watchers): its live sessions follow. */
  projectLayersChanged(workspaceId: string): Promise<void> {
    return this.resync((s) => s.workspace_id === workspaceId);
  }

  /** A workspace's local.toml changed (the config watchers): the servers of its live sessions hear `roots/list_changed`. */
  async rootsChanged(workspaceId: string): Promise<void> {
    for (const set of [...this.sets.values()]) {
      if (set.closed || this.deps.sessions.get(set.sessionId)?.workspace_id !== workspaceId) continue;
      await set.built;
      for (const c of set.conns.values()) {
        await c.rootsChanged().catch((err: unknown) => this.deps.log.warn({ err: message(err), session: set.sessionId }, 'cannot tell an MCP server its roots changed'));
      }
    }
  }

  /**
   * Live sessions chosen by `which` stop servers no longer declared (or changed) and add new ones. Each reload is
   * chained onto the set's `built` at once (before any await), so a turn's `ready` that follows the change (a
   * plugin disabled, then a prompt) waits for it and never offers the old tools.
   */
  private resync(which: (s: SessionRecord) => boolean): Promise<void> {
    const reloads: Array<Promise<void>> = [];
    for (const set of [...this.sets.values()]) {
      const s = this.deps.sessions.get(set.sessionId);
      if (!s || !which(s) || set.closed) continue;
      const reload = set.built.then(async () => {
        const { run, conflicts } = (await loadCatalog(this.deps.home, this.sessionRoot(s))).runtimeSet();
        if (!set.closed) await set.apply(run, conflicts, (e) => this.connectionFor(e, set));
      });
      set.built = reload.catch((err: unknown) => this.deps.log.warn({ err: message(err), session: set.sessionId }, 'reloading the MCP layers failed'));
      reloads.push(reload);
    }
    return Promise.all(reloads).then(() => undefined);
  }

  /** A connection for a session's entry, or for a probe (`set` undefined; `withAuth` false = no stored grant). */
  connectionFor(e: CatalogEntry, set: SessionServers | undefined, cwd?: string, withAuth = true): McpConnection {
    const cfg = this.deps.config.current();
    const base = set?.root ?? cwd ?? os.homedir();
    const projectLayer = e.layer === 'project-root' || e.layer === 'project-local';
    const relBase = projectLayer && set ? this.deps.workspaces.all().find((w) => set.root === w.root || set.root.startsWith(w.root + path.sep))?.root ?? base : base;
    const spec: ConnectionSpec = {
      name: e.name, config: e.config,
      ...(e.config.transport === 'stdio' ? { cwd: e.config.cwd ? path.resolve(relBase, e.config.cwd) : base } : {}),
      startupTimeoutMs: e.config.startupTimeoutMs ?? cfg.mcp.startup_timeout_ms,
      toolTimeoutMs: e.config.toolTimeoutMs ?? cfg.mcp.tool_timeout_ms,
      client: { name: cfg.identity.slug, version: this.deps.version },
      ...(withAuth && oauthCandidate(e.config) ? { auth: () => this.sessionProvider(e) } : {}),
      ...(set ? {
        elicit: (req, signal) => this.elicit(set, e.name, req, signal),
        roots: () => this.roots(set.sessionId),
        reconnect: this.deps.reconnect ?? DEFAULT_RECONNECT,
        warn: (msg, err) => this.deps.log.warn({ err: message(err), session: set.sessionId }, msg),
      } : {}),
    };
    return new McpConnection(spec);
  }

  /** The provider a connection uses: stored tokens (refreshed), never a browser redirect. */
  sessionProvider(e: CatalogEntry): GrantProvider {
    const c = e.config as Extract<McpServerConfig, { url: string }>;
    return new GrantProvider({
      store: this.deps.grants, key: grantKey(e)!, name: e.name, serverUrl: canonicalUrl(c)!, redirectUrl: this.deps.redirectUrl(),
      clientName: this.deps.config.current().identity.name, ...(c.oauth?.scope ? { scope: c.oauth.scope } : {}),
      ...(c.oauth?.clientId ? { preregistered: { client_id: c.oauth.clientId, ...(c.oauth.clientSecret ? { client_secret: c.oauth.clientSecret } : {}) } } : {}),
    });
  }

  /** The session's roots: its workspace root and the workspace's additional directories. */
  private async roots(sessionId: string): Promise<Array<{ uri: string; name: string }>> {
    const s = this.deps.sessions.get(sessionId);
    if (!s) return [];
    const dirs = await allowedRoots({ workspaces: this.deps.workspaces, workspaceDirs: this.deps.workspaceDirs, log: this.deps.log }, s);
    return dirs.map((d) => ({ uri: pathToFileURL(d).href, name: path.basename(d) || d }));
  }

  private async elicit(set: SessionServers, server: string, req: Parameters<NonNullable<ConnectionSpec['elicit']>>[0], signal: AbortSignal) {
    const site = set.inflight.get(server)?.at(-1);
    if (!site || !('requestedSchema' in req)) return { action: 'decline' as const };
    return elicitThroughQuestions(this.deps.questions, server, site, req, signal);
  }

  // ---- the executor's port ----

  /** Before a model request: the session's servers start (the first time) and the request waits for them. */
  async ready(sessionId: string): Promise<void> {
    const set = this.sets.get(sessionId);
    if (!set) return;
    await set.built;
    if (set.closed) return;
    await set.activate();
    // A server that announced a changed tool list is read again before the request offers its tools.
    await Promise.all([...set.conns.values()].map((c) => c.toolsSettled()));
  }

  list(sessionId: string): ExternalTool[] {
    const set = this.sets.get(sessionId);
    if (!set) return [];
    const tools: ExternalTool[] = [...set.tools().values()].map((t) => ({ name: t.name, description: t.spec.description ?? '', spec: t.spec, serverId: t.server }));
    const withResources = [...set.conns.values()].filter((c) => c.hasResources).map((c) => c.name);
    if (withResources.length) {
      const spec = readResourceSpec(withResources);
      tools.push({ name: READ_MCP_RESOURCE, description: spec.description ?? '', spec, readOnly: true });
    }
    return tools;
  }

  has(_sessionId: string, name: string): boolean {
    return name.startsWith('mcp__') || name === READ_MCP_RESOURCE;
  }

  async call(sessionId: string, name: string, input: unknown, ctx: ExternalCall): Promise<ToolOutcome> {
    const set = this.sets.get(sessionId);
    if (set && name === READ_MCP_RESOURCE) return this.readResource(set, input, ctx);
    const tool = set?.tools().get(name);
    if (!set || !tool) return { content: `tool not available: ${name}`, is_error: true };
    const conn = set.conns.get(tool.server)!;
    if (conn.spec.auth) await this.refreshIfNeeded(set.entries.get(tool.server)!);
    const leave = set.enter(tool.server, { sessionId, agentId: ctx.agentId, ...(ctx.turnId ? { turnId: ctx.turnId } : {}), toolCallId: ctx.toolCallId });
    try {
      const r = await conn.callTool(tool.original, (input ?? {}) as Record<string, unknown>, {
        signal: ctx.signal,
        onProgress: (p) => ctx.progress({ progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message !== undefined ? { message: p.message } : {}) }),
      });
      return await toToolOutcome(r, this.site(sessionId, ctx.toolCallId, tool.server));
    } catch (err) {
      return { content: `MCP server "${tool.server}" failed to run ${tool.original}: ${message(err)}`, is_error: true };
    } finally {
      leave();
    }
  }

  private site(sessionId: string, toolCallId: string, server: string): ResultSite {
    return { home: this.deps.home, sessionId, toolCallId, server };
  }

  /** ReadMcpResource: `resources/read` of one of the session's servers, bounded like Read (`[read]` budgets). */
  private async readResource(set: SessionServers, raw: unknown, ctx: ExternalCall): Promise<ToolOutcome> {
    const input = parseReadResource(raw);
    if (typeof input === 'string') return { content: input, is_error: true };
    const conn = set.conns.get(input.server);
    if (!conn?.hasResources) return { content: `MCP server "${input.server}" is not connected or offers no resources`, is_error: true };
    const { default_max_chars, max_chars } = this.deps.config.current().read;
    try {
      const r = await conn.readResource(input.uri, ctx.signal);
      return await resourceOutcome(r, input, Math.min(input.max_chars ?? default_max_chars, max_chars), this.site(set.sessionId, ctx.toolCallId, input.server));
    } catch (err) {
      return { content: `MCP server "${input.server}" failed to read ${input.uri}: ${message(err)}`, is_error: true };
    }
  }

  /** Refreshes a grant about to expire (Part B: refresh before expiry). */
  async refreshIfNeeded(e: CatalogEntry): Promise<void> {
    const key = grantKey(e);
    if (!key || !(await this.deps.grants.needsRefresh(key))) return;
    const { auth } = await loadMcpSdk();
    try {
      await auth(this.sessionProvider(e), { serverUrl: canonicalUrl(e.config)! });
    } catch (err) {
      this.deps.log.warn({ server: e.name, err: message(err) }, 'refreshing an MCP OAuth token failed');
    }
  }

  // ---- v1 routes ----

  /** The most recently created session whose servers are loaded (Part B "the effective agent"). */
  private effective(): SessionServers | undefined {
    let best: { set: SessionServers; at: string } | undefined;
    for (const set of this.sets.values()) {
      const at = this.deps.sessions.get(set.sessionId)?.created_at ?? '';
      if (!best || at > best.at) best = { set, at };
    }
    return best?.set;
  }

  /** The v1 list; a session loaded just now lists its servers once its layers are read. */
  async servers(sessionId?: string): Promise<McpServerV1[]> {
    const set = sessionId ? this.sets.get(sessionId) : this.effective();
    await set?.built;
    return set?.view() ?? [];
  }

  /**
   * `:restart`: the server stops and starts again with its current entry in every live session that uses
   * it. It starts at once in the effective session (the one the v1 list shows) and in sessions whose
   * servers run; the others start it with their next turn. 40408 when no live session has it.
   */
  async restart(serverId: string): Promise<void> {
    // A session loaded just now may still be reading its layers: its servers count too.
    await Promise.all([...this.sets.values()].map((set) => set.built));
    const sets = [...this.sets.values()].filter((set) => set.conns.has(serverId));
    if (!sets.length) throw notFound(Codes.MCP_SERVER_NOT_FOUND, 'MCP server', serverId);
    const effective = this.effective();
    await Promise.all(sets.map(async (set) => {
      const s = this.deps.sessions.get(set.sessionId);
      const fresh = s ? (await loadCatalog(this.deps.home, this.sessionRoot(s))).runtimeEntry(serverId) : undefined;
      const entry = fresh && !('message' in fresh) ? fresh : set.entries.get(serverId)!;
      await set.replace(entry, (e) => this.connectionFor(e, set), set === effective);
    }));
  }

  /** Live connections using the grant `key` (OAuth reset and completion reach them). */
  private connectionsWithGrant(key: string): Array<{ set: SessionServers; conn: McpConnection; entry: CatalogEntry }> {
    const out: Array<{ set: SessionServers; conn: McpConnection; entry: CatalogEntry }> = [];
    for (const set of this.sets.values()) {
      for (const [name, conn] of set.conns) {
        const entry = set.entries.get(name);
        if (entry && conn.spec.auth && grantKey(entry) === key) out.push({ set, conn, entry });
      }
    }
    return out;
  }

  /** auth:reset: live sessions lose the server's authorization at once. */
  async grantReset(key: string): Promise<void> {
    for (const { conn } of this.connectionsWithGrant(key)) await conn.fail('OAuth authorization was reset; sign in again with auth:begin');
  }

  /** auth:complete: live sessions whose connection failed for want of authorization reconnect. */
  grantAuthorized(key: string): void {
    for (const { conn } of this.connectionsWithGrant(key)) {
      if (conn.status === 'error') void conn.start();
    }
  }

  /** Pids of live stdio children (tests check liveness with them). */
  pids(sessionId: string): number[] {
    return [...(this.sets.get(sessionId)?.conns.values() ?? [])].map((c) => c.pid).filter((p): p is number => p !== undefined);
  }
}
