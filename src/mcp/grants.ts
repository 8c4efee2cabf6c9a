import { createHash } from 'node:crypto';
import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Clock } from '../lib/clock.ts';
import { writeFileAtomic } from '../lib/fs-atomic.ts';
import { loadedMcpSdk } from './sdk.ts';

/** What is stored for one server: its client registration and its tokens. Never in mcp.json, never in a GET. */
export interface Grant {
  name: string;
  serverUrl: string;
  client?: OAuthClientInformationMixed;
  /** The client name registered with (Part B identity: kept until the grant is reset). */
  clientName?: string;
  tokens?: OAuthTokens;
  /** When the access token expires (ms since the epoch), from `expires_in`. */
  expiresAt?: number;
  discovery?: OAuthDiscoveryState;
}

/** Refresh this long before the access token expires. */
export const REFRESH_MARGIN_MS = 60_000;

/**
 * The grants of OAuth-protected MCP servers: one file per server (keyed by runtime name and
 * canonical URL) in `<home>/mcp-oauth/`, directory 0700 and files 0600, written atomically.
 */
export class GrantStore {
  private readonly cache = new Map<string, Grant | null>();

  constructor(private readonly home: string, private readonly clock: Clock) {}

  get dir(): string {
    return path.join(this.home, 'mcp-oauth');
  }

  static keyOf(name: string, url: string): string {
    return createHash('sha256').update(`${name}\n${url}`).digest('hex').slice(0, 32);
  }

  async get(key: string): Promise<Grant | undefined> {
    if (this.cache.has(key)) return this.cache.get(key) ?? undefined;
    let g: Grant | null = null;
    try {
      g = JSON.parse(await readFile(this.fileOf(key), 'utf8')) as Grant;
    } catch {
      g = null;
    }
    this.cache.set(key, g);
    return g ?? undefined;
  }

  async put(key: string, g: Grant): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.fileOf(key), JSON.stringify(g), 0o600);
    this.cache.set(key, g);
  }

  async update(key: string, base: Pick<Grant, 'name' | 'serverUrl'>, change: (g: Grant) => Grant): Promise<void> {
    await this.put(key, change((await this.get(key)) ?? { ...base }));
  }

  async remove(key: string): Promise<boolean> {
    const had = (await this.get(key)) !== undefined;
    await rm(this.fileOf(key), { force: true });
    this.cache.set(key, null);
    return had;
  }

  /** `authorized` (a token not expired), `expired`, or `none`. */
  async state(key: string): Promise<'authorized' | 'expired' | 'none'> {
    const g = await this.get(key);
    if (!g?.tokens?.access_token) return 'none';
    if (g.expiresAt !== undefined && g.expiresAt <= this.clock.now().getTime()) return 'expired';
    return 'authorized';
  }

  /** Whether the token expires within the refresh margin and can be refreshed. */
  async needsRefresh(key: string): Promise<boolean> {
    const g = await this.get(key);
    return !!g?.tokens?.refresh_token && g.expiresAt !== undefined && g.expiresAt - REFRESH_MARGIN_MS <= this.clock.now().getTime();
  }

  now(): number {
    return this.clock.now().getTime();
  }

  private fileOf(key: string): string {
    return path.join(this.dir, `${key}.json`);
  }
}

export interface ProviderOptions {
  store: GrantStore;
  key: string;
  name: string;
  serverUrl: string;
  redirectUrl: string;
  /** The name registered with the authorization server on first registration. */
  clientName: string;
  scope?: string;
  /** A pre-registered client from the config (no dynamic registration). */
  preregistered?: { client_id: string; client_secret?: string };
  /** An interactive flow (auth:begin) receives the authorization URL; a session's connection has none and fails instead. */
  interactive?: { state: string; onRedirect(url: URL): void };
}

/**
 * The SDK's OAuthClientProvider over one stored grant. A session's connection uses stored tokens
 * and refreshes them; only an auth:begin flow may register a client or send the user to the
 * authorization page (PKCE verifier kept in memory for that flow).
 */
export class GrantProvider implements OAuthClientProvider {
  private verifier?: string;
  saveClientInformation?: (info: OAuthClientInformationMixed) => Promise<void>;

  constructor(private readonly o: ProviderOptions) {
    if (o.interactive && !o.preregistered) {
      this.saveClientInformation = (info) => o.store.update(o.key, this.base, (g) => ({ ...g, client: info, clientName: o.clientName }));
    }
  }

  private get base() {
    return { name: this.o.name, serverUrl: this.o.serverUrl };
  }

  get redirectUrl(): string {
    return this.o.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.o.clientName, redirect_uris: [this.o.redirectUrl], grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'], token_endpoint_auth_method: this.o.preregistered?.client_secret ? 'client_secret_post' : 'none',
      ...(this.o.scope ? { scope: this.o.scope } : {}),
    };
  }

  state(): string {
    return this.o.interactive?.state ?? '';
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    if (this.o.preregistered) return { ...this.o.preregistered };
    return (await this.o.store.get(this.o.key))?.client;
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.o.store.get(this.o.key))?.tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const expiresAt = tokens.expires_in !== undefined ? this.o.store.now() + tokens.expires_in * 1000 : undefined;
    await this.o.store.update(this.o.key, this.base, (g) => ({
      ...g, tokens: { ...tokens, refresh_token: tokens.refresh_token ?? g.tokens?.refresh_token }, ...(expiresAt !== undefined ? { expiresAt } : { expiresAt: undefined }),
    }));
  }

  redirectToAuthorization(url: URL): void {
    if (!this.o.interactive) {
      // Only the SDK's auth flow calls this, so the SDK is loaded.
      const Unauthorized = loadedMcpSdk()?.UnauthorizedError ?? Error;
      throw new Unauthorized('OAuth authorization required: sign in with POST /api/v2/mcp/auth:begin');
    }
    this.o.interactive.onRedirect(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('no PKCE verifier for this flow');
    return this.verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier') {
      this.verifier = undefined;
      return;
    }
    if (!(await this.o.store.get(this.o.key))) return;
    await this.o.store.update(this.o.key, this.base, (g) => {
      const next = { ...g };
      if (scope === 'all' || scope === 'tokens') delete next.tokens, delete next.expiresAt;
      if (scope === 'all' || scope === 'client') delete next.client;
      if (scope === 'all' || scope === 'discovery') delete next.discovery;
      return next;
    });
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    await this.o.store.update(this.o.key, this.base, (g) => ({ ...g, discovery: state }));
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.o.store.get(this.o.key))?.discovery;
  }
}
