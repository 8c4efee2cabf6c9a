import os from 'node:os';
import path from 'node:path';
import type { JournalEvent } from '../../journal/types.ts';
import type { SessionIndex, SessionRecord } from '../../projections/session-index/session-index.ts';
import type { WorkspaceRegistry } from '../../projections/workspaces/workspace-registry.ts';
import { Codes } from '../../protocol/codes.ts';
import { notFound } from '../../protocol/errors.ts';
import type { McpServerConfig, McpServerV1 } from '../../protocol/schemas/mcp.ts';
import type { Logger } from '../app/logger.ts';
import type { ConfigService } from '../config/service.ts';
import type { ToolOutcome } from '../engine/tools.ts';
import type { QuestionService } from '../questions/service.ts';
import type { ExternalCall, ExternalTool, ExternalTools } from '../tools/external.ts';
import { canonicalUrl, loadCatalog, type Catalog, type CatalogEntry } from './catalog.ts';
import { McpConnection, message, type ConnectionSpec } from './connection.ts';
import { loadMcpSdk } from './sdk.ts';
import { elicitThroughQuestions } from './elicitation.ts';
import { GrantProvider, GrantStore } from './grants.ts';
import { toToolOutcome } from './results.ts';
import { SessionServers } from './session-servers.ts';

export interface McpDeps {
  home: string;
  config: ConfigService;
  sessions: SessionIndex;
  workspaces: WorkspaceRegistry;
  questions: QuestionService;
  grants: GrantStore;
  log: Logger;
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

  /** A session's runtime loaded: its servers start in the background (`ready` waits for them). */
  loaded(session: SessionRecord): void {
    if (this.closing || this.sets.has(session.id)) return;
    const set = new SessionServers(session.id, session.cwd);
    this.sets.set(session.id, set);
    set.built = this.build(set, session).catch((err) => this.deps.log.warn({ err, session: session.id }, 'reading the MCP layers failed'));
    set.started = set.built.then(() => Promise.all(set.closed ? [] : [...set.conns.values()].map((c) => c.start()))).then(() => undefined);
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
    set.conflicts = conflicts;
    if (set.closed) return;
    for (const e of run) {
      set.entries.set(e.name, e);
      set.conns.set(e.name, this.connectionFor(e, set));
    }
  }

  /**
   * Subscriber of committed events (src/app/subscribers.ts): trust changes reload project layers;
   * a plugin installed, enabled, disabled or removed reloads the plugin layer of every live session.
   */
  readonly onCommitted = (events: JournalEvent[]): Promise<unknown> | void => {
    const ids = new Set(events.filter((e) => e.type === 'workspace.trust_changed').map((e) => (e.payload as { workspace_id: string }).workspace_id));
    if (events.some((e) => e.type === 'event.plugin.changed')) return this.resync(() => true);
    if (ids.size) return Promise.all([...ids].map((id) => this.trustChanged(id)));
  };

  /** `workspace.trust_changed`: the live sessions of that workspace gain or lose the project layers. */
  trustChanged(workspaceId: string): Promise<void> {
    return this.resync((s) => s.workspace_id === workspaceId);
  }

  /** Live sessions chosen by `which` stop servers no longer declared (or changed) and start new ones. */
  private async resync(which: (s: SessionRecord) => boolean): Promise<void> {
    for (const set of [...this.sets.values()]) {
      const s = this.deps.sessions.get(set.sessionId);
      if (!s || !which(s) || set.closed) continue;
      await set.built;
      const { run, conflicts } = (await loadCatalog(this.deps.home, this.sessionRoot(s))).runtimeSet();
      set.conflicts = conflicts;
      const wanted = new Map(run.map((e) => [e.name, e]));
      for (const [name, conn] of [...set.conns]) {
        const next = wanted.get(name);
        if (next && JSON.stringify(next.config) === JSON.stringify(set.entries.get(name)?.config) && next.origin === set.entries.get(name)?.origin) continue;
        set.conns.delete(name);
        set.entries.delete(name);
        await conn.stop();
      }
      const added: McpConnection[] = [];
      for (const [name, e] of wanted) {
        if (set.conns.has(name)) continue;
        const conn = this.connectionFor(e, set);
        set.entries.set(name, e);
        set.conns.set(name, conn);
        added.push(conn);
      }
      set.started = Promise.all(added.map((c) => c.start())).then(() => undefined);
    }
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
      ...(set ? { elicit: (req, signal) => this.elicit(set, e.name, req, signal) } : {}),
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

  private async elicit(set: SessionServers, server: string, req: Parameters<NonNullable<ConnectionSpec['elicit']>>[0], signal: AbortSignal) {
    const site = set.inflight.get(server)?.at(-1);
    if (!site || !('requestedSchema' in req)) return { action: 'decline' as const };
    return elicitThroughQuestions(this.deps.questions, server, site, req, signal);
  }

  // ---- the executor's port ----

  async ready(sessionId: string): Promise<void> {
    await this.sets.get(sessionId)?.started;
  }

  list(sessionId: string): ExternalTool[] {
    const set = this.sets.get(sessionId);
    if (!set) return [];
    return [...set.tools().values()].map((t) => ({ name: t.name, description: t.spec.description ?? '', spec: t.spec, serverId: t.server }));
  }

  has(_sessionId: string, name: string): boolean {
    return name.startsWith('mcp__');
  }

  async call(sessionId: string, name: string, input: unknown, ctx: ExternalCall): Promise<ToolOutcome> {
    const set = this.sets.get(sessionId);
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
      return toToolOutcome(r);
    } catch (err) {
      return { content: `MCP server "${tool.server}" failed to run ${tool.original}: ${message(err)}`, is_error: true };
    } finally {
      leave();
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

  servers(sessionId?: string): McpServerV1[] {
    const set = sessionId ? this.sets.get(sessionId) : this.effective();
    return set?.view() ?? [];
  }

  /** `:restart`: the server's connection stops and starts again with its current config (40408 when unknown). */
  async restart(serverId: string): Promise<void> {
    const set = this.effective();
    const conn = set?.conns.get(serverId);
    if (!set || !conn) throw notFound(Codes.MCP_SERVER_NOT_FOUND, 'MCP server', serverId);
    const s = this.deps.sessions.get(set.sessionId);
    const fresh = s ? (await loadCatalog(this.deps.home, this.sessionRoot(s))).runtimeEntry(serverId) : undefined;
    const entry = fresh && !('message' in fresh) ? fresh : set.entries.get(serverId)!;
    await conn.stop();
    const next = this.connectionFor(entry, set);
    set.entries.set(serverId, entry);
    set.conns.set(serverId, next);
    set.started = next.start();
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
