import { Codes } from '../../protocol/codes.ts';
import { notFound, validationError } from '../../protocol/errors.ts';
import type { ManagedMcpServer, McpAuthStatus, McpLocator, McpServerConfig } from '../../protocol/schemas/mcp.ts';
import type { Clock } from '../lib/clock.ts';
import { canonicalUrl, managedView, redactConfig, type Catalog, type CatalogEntry } from './catalog.ts';
import { isUnauthorized, message } from './connection.ts';
import { loadMcpSdk } from './sdk.ts';
import type { GrantStore } from './grants.ts';
import { serverIdOf } from './layers.ts';
import { grantKey, hasStaticToken, oauthCandidate, type McpService } from './service.ts';
import type { UserMcpFile } from './user-file.ts';

export interface McpManagementDeps {
  mcp: McpService;
  file: UserMcpFile;
  grants: GrantStore;
  clock: Clock;
}

/** `verify` of auth-statuses: `true` probes every OAuth candidate, `false` none, omitted only unpinned servers without credentials. */
export type VerifyMode = 'all' | 'none' | 'unpinned';

interface AuthCheck { authStatus: McpAuthStatus; error?: string; checkedAt?: string }

/**
 * `/api/v2/mcp` (Part B "MCP management"): the catalog of the layers independent of any session,
 * writes to the user-level file (which reach live sessions: a new server is added, a removed one
 * disconnected, a changed one restarted), probes (servers:test, servers:inspect, auth-statuses).
 */
export class McpManagement {
  constructor(private readonly deps: McpManagementDeps) {}

  async list(cwd?: string): Promise<ManagedMcpServer[]> {
    return (await this.deps.mcp.catalog(cwd)).listed().map(managedView);
  }

  async get(name: string, cwd?: string): Promise<ManagedMcpServer> {
    const c = await this.deps.mcp.catalog(cwd);
    const e = c.fileEntry(name) ?? c.entries.find((x) => x.layer === 'plugin' && x.name === name);
    if (!e) throw notFound(Codes.MCP_SERVER_NOT_FOUND, 'MCP server', name);
    return managedView(e);
  }

  async create(name: string, config: McpServerConfig, cwd?: string): Promise<ManagedMcpServer[]> {
    await this.deps.file.write({ op: 'create', name, config }, await this.deps.mcp.catalog(cwd));
    await this.deps.mcp.catalogChanged();
    return this.list(cwd);
  }

  async replace(name: string, config: McpServerConfig, cwd?: string): Promise<ManagedMcpServer[]> {
    await this.deps.file.write({ op: 'replace', name, config }, await this.deps.mcp.catalog(cwd));
    await this.deps.mcp.catalogChanged();
    return this.list(cwd);
  }

  async remove(name: string, cwd?: string): Promise<ManagedMcpServer[]> {
    await this.deps.file.write({ op: 'delete', name }, await this.deps.mcp.catalog(cwd));
    await this.deps.mcp.catalogChanged();
    return this.list(cwd);
  }

  /** servers:test: a real connection and its tool list; nothing persisted. */
  async test(body: { name?: string; server?: { name: string } & McpServerConfig; cwd?: string }): Promise<{ success: boolean; output: string; tools?: Array<{ name: string; description?: string }> }> {
    if ((body.name === undefined) === (body.server === undefined)) {
      throw validationError([{ field: body.name === undefined ? 'name' : 'server', message: 'give exactly one of name and server' }]);
    }
    let entry: CatalogEntry;
    if (body.server) {
      const { name, ...config } = body.server;
      entry = { name, config: config as McpServerConfig, layer: 'user', origin: 'inline', locator: { source: 'global', name }, serverId: serverIdOf({ source: 'global', name }), mutable: false, shadowed: false };
    } else {
      const found = (await this.deps.mcp.catalog(body.cwd)).runtimeEntry(body.name!);
      if (!found) throw notFound(Codes.MCP_SERVER_NOT_FOUND, 'MCP server', body.name!);
      if ('message' in found) throw validationError([{ field: 'name', message: found.message }]);
      entry = found;
    }
    const conn = this.deps.mcp.connectionFor(entry, undefined, body.cwd);
    await conn.start();
    try {
      if (conn.status !== 'connected') return { success: false, output: conn.lastError ?? 'failed to connect' };
      const tools = conn.tools.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}) }));
      const output = tools.length ? tools.map((t) => `${t.name}${t.description ? `: ${t.description}` : ''}`).join('\n') : '(no tools)';
      return { success: true, output, tools };
    } finally {
      await conn.stop();
    }
  }

  /** servers:inspect: each target (default: every listed entry) with a probed authStatus. */
  async inspect(targets: McpLocator[] | undefined, cwd?: string) {
    const c = await this.deps.mcp.catalog(cwd);
    const entries = targets ? targets.map((t) => c.find(t) ?? missing(t)) : c.listed();
    return Promise.all(entries.map(async (e) => {
      const check = await this.authCheck(e, c, 'all', cwd);
      const url = canonicalUrl(e.config);
      return {
        serverId: e.serverId, locator: e.locator, runtimeName: e.name, ...(url ? { canonicalUrl: url } : {}), origin: e.origin,
        config: e.mutable ? { ...e.config } : redactConfig(e.config), enabled: e.config.enabled !== false, editable: e.mutable, ...check,
      };
    }));
  }

  async authStatuses(cwd: string | undefined, verify: VerifyMode) {
    const c = await this.deps.mcp.catalog(cwd);
    return Promise.all(c.listed().map(async (e) => ({ name: e.name, serverId: e.serverId, ...(await this.authCheck(e, c, verify, cwd)) })));
  }

  /** The entry a locator names (40408 when none). */
  async find(locator: McpLocator, cwd?: string): Promise<CatalogEntry> {
    return (await this.deps.mcp.catalog(cwd)).find(locator) ?? missing(locator);
  }

  private async authCheck(e: CatalogEntry, c: Catalog, verify: VerifyMode, cwd?: string): Promise<AuthCheck> {
    const conflict = c.conflictOf(e.name);
    if (conflict && conflict.entries.includes(e)) return { authStatus: 'unavailable', error: conflict.message };
    const cfg = e.config;
    if (cfg.transport === 'stdio') return { authStatus: 'not-applicable' };
    if (hasStaticToken(cfg) && cfg.auth !== 'oauth') return { authStatus: 'bearer-token' };
    if (!oauthCandidate(cfg)) return { authStatus: 'not-applicable' };
    const key = grantKey(e)!;
    const state = await this.deps.grants.state(key);
    const pinned = cfg.auth === 'oauth';
    const probe = verify === 'all' || (verify === 'unpinned' && !pinned && state === 'none');
    if (!probe) return { authStatus: offline(state, pinned) };
    const checkedAt = this.deps.clock.now().toISOString();
    if (state !== 'none') {
      // A probe may refresh (or, when the server refuses the refresh, invalidate) the stored grant.
      if (state === 'expired' || (await this.deps.grants.needsRefresh(key))) {
        try {
          const { auth } = await loadMcpSdk();
          await auth(this.deps.mcp.sessionProvider(e), { serverUrl: canonicalUrl(cfg)! });
        } catch {
          /* still expired, or the grant was invalidated */
        }
      }
      const after = await this.deps.grants.state(key);
      if (after !== 'authorized') return { authStatus: after === 'expired' ? 'oauth-expired' : 'oauth-required', checkedAt };
    }
    const conn = this.deps.mcp.connectionFor(e, undefined, cwd, state !== 'none');
    await conn.start();
    await conn.stop();
    if (!conn.failure) return { authStatus: state !== 'none' ? 'oauth-authorized' : pinned ? 'oauth-required' : 'not-applicable', checkedAt };
    if (isUnauthorized(conn.failure)) return { authStatus: state !== 'none' ? 'oauth-expired' : 'oauth-required', checkedAt };
    return { authStatus: 'unavailable', error: message(conn.failure), checkedAt };
  }
}

function offline(state: 'authorized' | 'expired' | 'none', pinned: boolean): McpAuthStatus {
  if (state === 'authorized') return 'oauth-authorized';
  if (state === 'expired') return 'oauth-expired';
  return pinned ? 'oauth-required' : 'not-applicable';
}

function missing(l: McpLocator): never {
  throw notFound(Codes.MCP_SERVER_NOT_FOUND, 'MCP server', serverIdOf(l));
}
