import { randomBytes } from 'node:crypto';
import { Codes } from '../../protocol/codes.ts';
import { ApiError, validationError } from '../../protocol/errors.ts';
import type { McpServerConfig } from '../../protocol/schemas/mcp.ts';
import type { Logger } from '../lib/logger.ts';
import type { Ids } from '../lib/ids.ts';
import { canonicalUrl, type CatalogEntry } from './catalog.ts';
import { message } from './connection.ts';
import { loadMcpSdk } from './sdk.ts';
import { GrantProvider, type GrantStore } from './grants.ts';
import { grantKey, hasStaticToken } from './service.ts';

/** Part B limits: auth:complete waits 15 minutes by default; an idle flow expires after 15 minutes. */
export const FLOW_WAIT_MS = 15 * 60 * 1000;
export const FLOW_IDLE_MS = 15 * 60 * 1000;

interface Flow {
  id: string;
  state: string;
  key: string;
  entry: CatalogEntry;
  provider: GrantProvider;
  /** Set when the browser came back (or the flow ended): undefined = success. */
  outcome?: { error?: string };
  settled: Promise<void>;
  settle(error?: string): void;
  timer: NodeJS.Timeout;
}

export interface OAuthFlowDeps {
  grants: GrantStore;
  ids: Ids;
  log: Logger;
  redirectUrl: () => string;
  clientName: () => string;
  /** Live sessions: a completed grant reconnects the server, a reset one loses it. */
  authorized(key: string): void;
  reset(key: string): Promise<void>;
}

const oauthFailed = (msg: string, details: Record<string, unknown> = {}) => new ApiError(Codes.MCP_OAUTH_FAILED, `MCP OAuth flow failed: ${msg}`, { details });

/**
 * OAuth flows of MCP servers (docs/mcp.md "OAuth"): `begin` discovers the authorization server,
 * registers a client when none is stored (dynamic client registration), and returns the
 * authorization URL with a PKCE challenge and a state bound to the flow; the browser comes back to
 * the daemon's loopback callback, which exchanges the code; `complete` waits for that.
 */
export class OAuthFlows {
  private readonly flows = new Map<string, Flow>();
  private readonly byState = new Map<string, Flow>();

  constructor(private readonly deps: OAuthFlowDeps) {}

  async begin(entry: CatalogEntry): Promise<{ status: 'authorization-required'; flowId: string; authorizationUrl: string } | { status: 'already-authorized' }> {
    const c = entry.config;
    if (c.transport === 'stdio') throw cannotOAuth(entry, 'it uses the stdio transport');
    if (c.auth === 'none') throw cannotOAuth(entry, 'its config sets auth = "none"');
    if (c.bearerToken !== undefined) throw cannotOAuth(entry, 'it carries a static bearer token');
    if (Object.keys(c.headers ?? {}).length && c.auth !== 'oauth') throw cannotOAuth(entry, 'it has static headers and its config does not set auth = "oauth"');
    if (hasStaticToken(c)) throw cannotOAuth(entry, 'it carries a static Authorization header');
    const key = grantKey(entry)!;
    if ((await this.deps.grants.state(key)) === 'authorized' && !(await this.deps.grants.needsRefresh(key))) return { status: 'already-authorized' };
    const state = randomBytes(24).toString('base64url');
    let url: URL | undefined;
    const provider = this.provider(entry, key, { state, onRedirect: (u) => (url = u) });
    let result: 'AUTHORIZED' | 'REDIRECT';
    try {
      const { auth } = await loadMcpSdk();
      result = await auth(provider, { serverUrl: canonicalUrl(c)!, ...(c.oauth?.scope ? { scope: c.oauth.scope } : {}) });
    } catch (err) {
      throw oauthFailed(message(err), { name: entry.name });
    }
    if (result === 'AUTHORIZED') {
      this.deps.authorized(key);
      return { status: 'already-authorized' };
    }
    if (!url) throw oauthFailed('the authorization server gave no authorization URL', { name: entry.name });
    const flow = this.open(entry, key, state, provider);
    return { status: 'authorization-required', flowId: flow.id, authorizationUrl: url.href };
  }

  /** Waits for the browser's callback; aborted when the client goes away. */
  async complete(flowId: string, timeoutMs: number = FLOW_WAIT_MS, signal?: AbortSignal): Promise<null> {
    const flow = this.flows.get(flowId);
    if (!flow) throw validationError([{ field: 'flowId', message: `unknown or finished OAuth flow: ${flowId}` }]);
    let timer: NodeJS.Timeout | undefined;
    const waited = await Promise.race([
      flow.settled.then(() => 'settled' as const),
      new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), timeoutMs))),
      new Promise<'aborted'>((r) => signal?.addEventListener('abort', () => r('aborted'), { once: true })),
    ]).finally(() => clearTimeout(timer));
    if (waited === 'aborted') throw oauthFailed('the client closed the connection while waiting', { flowId });
    if (waited === 'timeout') throw oauthFailed(`no authorization within ${timeoutMs} ms`, { flowId });
    this.drop(flow);
    if (flow.outcome?.error) throw oauthFailed(flow.outcome.error, { flowId, name: flow.entry.name });
    return null;
  }

  cancel(flowId: string): void {
    const flow = this.flows.get(flowId);
    if (!flow) return;
    flow.settle('cancelled');
    this.drop(flow);
  }

  /** auth:reset: the stored grant (registration and tokens) goes; live sessions lose the authorization. */
  async reset(entry: CatalogEntry): Promise<void> {
    const key = grantKey(entry);
    if (!key) return;
    for (const f of [...this.flows.values()]) if (f.key === key) this.cancel(f.id);
    await this.deps.grants.remove(key);
    await this.deps.reset(key);
  }

  /** The browser's redirect: exchanges the code of the flow its `state` names. Returns the page text. */
  async callback(q: { state?: string; code?: string; error?: string; error_description?: string }): Promise<{ ok: boolean; text: string }> {
    const flow = q.state ? this.byState.get(q.state) : undefined;
    if (!flow || flow.outcome) return { ok: false, text: 'This sign-in link is unknown or has already been used.' };
    if (q.error || !q.code) {
      const why = q.error ? `${q.error}${q.error_description ? `: ${q.error_description}` : ''}` : 'no authorization code';
      flow.settle(`the authorization server answered ${why}`);
      return { ok: false, text: `Sign-in failed: ${why}` };
    }
    try {
      const { auth } = await loadMcpSdk();
      await auth(flow.provider, { serverUrl: canonicalUrl(flow.entry.config)!, authorizationCode: q.code });
    } catch (err) {
      flow.settle(`exchanging the authorization code failed: ${message(err)}`);
      return { ok: false, text: 'Sign-in failed while exchanging the code.' };
    }
    flow.settle();
    this.deps.authorized(flow.key);
    return { ok: true, text: `Signed in to ${flow.entry.name}. You can close this tab.` };
  }

  close(): void {
    for (const f of [...this.flows.values()]) this.cancel(f.id);
  }

  private provider(entry: CatalogEntry, key: string, interactive: { state: string; onRedirect(url: URL): void }): GrantProvider {
    const c = entry.config as Extract<McpServerConfig, { url: string }>;
    return new GrantProvider({
      store: this.deps.grants, key, name: entry.name, serverUrl: canonicalUrl(c)!, redirectUrl: this.deps.redirectUrl(), clientName: this.deps.clientName(),
      interactive, ...(c.oauth?.scope ? { scope: c.oauth.scope } : {}),
      ...(c.oauth?.clientId ? { preregistered: { client_id: c.oauth.clientId, ...(c.oauth.clientSecret ? { client_secret: c.oauth.clientSecret } : {}) } } : {}),
    });
  }

  private open(entry: CatalogEntry, key: string, state: string, provider: GrantProvider): Flow {
    let settle!: (error?: string) => void;
    const settled = new Promise<void>((r) => (settle = () => r()));
    const flow: Flow = {
      id: this.deps.ids.next('flow'), state, key, entry, provider, settled,
      settle: (error) => {
        if (flow.outcome) return;
        flow.outcome = error ? { error } : {};
        clearTimeout(flow.timer);
        // A finished flow is kept until complete reads it (or the idle expiry drops it).
        flow.timer = setTimeout(() => this.drop(flow), FLOW_IDLE_MS);
        flow.timer.unref();
        settle();
      },
      timer: setTimeout(() => {
        flow.settle('the flow expired after 15 minutes without a sign-in');
        this.drop(flow);
      }, FLOW_IDLE_MS),
    };
    flow.timer.unref();
    this.flows.set(flow.id, flow);
    this.byState.set(state, flow);
    return flow;
  }

  private drop(flow: Flow): void {
    clearTimeout(flow.timer);
    this.flows.delete(flow.id);
    this.byState.delete(flow.state);
  }
}

function cannotOAuth(entry: CatalogEntry, why: string): ApiError {
  return validationError([{ field: 'name', message: `${entry.serverId} cannot use OAuth: ${why}` }]);
}
