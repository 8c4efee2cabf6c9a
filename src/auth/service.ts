import { writeFile } from 'node:fs/promises';
import type { Logger } from '../lib/logger.ts';
import type { ConfigService } from '../config/service.ts';
import type { Clock } from '../lib/clock.ts';
import type { Ids } from '../lib/ids.ts';
import { Codes } from '../../protocol/codes.ts';
import { ApiError } from '../../protocol/errors.ts';
import { accessStatus, TokenKeeper, type AccountStatus } from './tokens.ts';
import { deleteCredential, readCredential, writeCredential, type StoredCredential } from './credentials.ts';
import { LoginFlow, type FlowSnapshot, type FlowStatus } from './flow.ts';
import { HostError, OAuthClient, type Token } from './oauth-client.ts';
import { removeManagedProvider, writeManagedProvider } from './provider-entry.ts';
import { hostFor, readOAuthSettings, regionFile, resolveRegion, type OAuthEnv, type Region } from './settings.ts';

/** The one provider that logs in through the device flow (Core "Login and usage"). */
export const MANAGED_PROVIDER = 'managed';

export interface AuthServiceDeps {
  home: string;
  config: ConfigService;
  log: Logger;
  clock: Clock;
  ids: Ids;
  /** `SVC_CODE_OAUTH_HOST` / `SVC_CODE_OAUTH_POLL_UNIT_MS`, read at start (src/app/settings.ts); default none. */
  oauthEnv?: OAuthEnv;
}

export type LoginStart = FlowSnapshot | { flow_id: string; provider: string; status: 'authenticated' };

/**
 * Login state of the daemon: the device flows (one per provider, the last one kept
 * for GET), the stored credentials and the access tokens other code asks for.
 */
export class AuthService {
  private readonly flows = new Map<string, LoginFlow>();
  /** A POST answered `authenticated` without a flow: what GET reports until the next flow. */
  private readonly instant = new Map<string, FlowSnapshot>();
  readonly tokens: TokenKeeper;

  constructor(private readonly deps: AuthServiceDeps) {
    this.tokens = new TokenKeeper({ home: deps.home, now: () => deps.clock.now(), log: deps.log });
  }

  private settings() {
    return readOAuthSettings(this.deps.config.rawDocument(), this.deps.oauthEnv ?? {});
  }

  /** Region of GET /api/v1/oauth/region. */
  region(): Promise<Region> {
    return resolveRegion(this.deps.home, this.settings());
  }

  /**
   * Checks a `provider` parameter: only `managed` logs in. A configured provider of
   * another kind is 40001 (it has no login); any other name is 40412.
   */
  checkProvider(provider: string): void {
    if (provider === MANAGED_PROVIDER) return;
    if (provider in this.deps.config.current().providers) {
      throw new ApiError(Codes.VALIDATION, `provider ${provider} does not log in through OAuth; only ${MANAGED_PROVIDER} does`, {
        details: [{ field: 'provider', message: `only ${MANAGED_PROVIDER} supports login` }],
      });
    }
    throw new ApiError(Codes.PROVIDER_NOT_FOUND, `provider not found: ${provider}`, { details: { id: provider } });
  }

  /** POST /api/v1/auth/login. */
  async login(provider: string, regionOverride?: Region): Promise<LoginStart> {
    this.checkProvider(provider);
    this.flows.get(provider)?.cancel();
    if (await this.isAuthenticated(provider)) {
      const snap = { flow_id: this.deps.ids.next('flow'), provider, status: 'authenticated' as const };
      this.flows.delete(provider);
      this.instant.set(provider, { ...snap, resolved_at: this.deps.clock.now().toISOString() });
      return snap;
    }
    const s = this.settings();
    const region = regionOverride ?? (await resolveRegion(this.deps.home, s));
    const client = new OAuthClient(hostFor(s, region), s.clientId);
    let code;
    try {
      code = await client.deviceCode();
    } catch (err) {
      throw new ApiError(Codes.INTERNAL, `cannot start the login: ${(err as Error).message}`);
    }
    const flow = new LoginFlow(this.deps.ids.next('flow'), provider, code, {
      client, log: this.deps.log, now: () => this.deps.clock.now(), pollUnitMs: s.pollUnitMs,
      onToken: (token) => this.complete(provider, client, region, token),
    });
    // A concurrent POST may have started a flow while this one waited for the host.
    this.flows.get(provider)?.cancel();
    this.flows.set(provider, flow);
    this.instant.delete(provider);
    flow.start();
    return flow.snapshot();
  }

  private async isAuthenticated(provider: string): Promise<boolean> {
    const configured = provider in this.deps.config.current().providers;
    return configured && (await this.accountStatus(provider)) === 'authenticated';
  }

  /** Stores the token, fetches the managed model list and writes the provider. Returns a warning for the snapshot. */
  private async complete(provider: string, client: OAuthClient, region: Region, token: Token): Promise<string | undefined> {
    const now = this.deps.clock.now();
    const cred: StoredCredential = {
      provider, host: client.host, client_id: client.clientId, region,
      access_token: token.access_token, refresh_token: token.refresh_token, token_type: token.token_type ?? 'Bearer', scope: token.scope,
      expires_at: token.expires_in !== undefined ? new Date(now.getTime() + token.expires_in * 1000).toISOString() : undefined,
      obtained_at: now.toISOString(),
    };
    await writeCredential(this.deps.home, provider, cred);
    await writeFile(regionFile(this.deps.home), `${region}\n`);
    try {
      await writeManagedProvider(this.deps.config, provider, await client.models(token.access_token));
      return undefined;
    } catch (err) {
      const message = err instanceof HostError || err instanceof ApiError ? err.message : String(err);
      this.deps.log.warn({ err: message }, 'logged in, but the managed model list could not be written');
      return `logged in, but the model list could not be fetched or written: ${message}`;
    }
  }

  /** GET /api/v1/auth/login: the last flow of the provider, or null. */
  snapshot(provider: string): FlowSnapshot | null {
    this.checkProvider(provider);
    return this.flows.get(provider)?.snapshot() ?? this.instant.get(provider) ?? null;
  }

  /** DELETE /api/v1/auth/login. */
  cancel(provider: string): { cancelled: boolean; status: FlowStatus | null } {
    this.checkProvider(provider);
    const flow = this.flows.get(provider);
    const cancelled = flow?.cancel() ?? false;
    return { cancelled, status: flow?.status ?? this.instant.get(provider)?.status ?? null };
  }

  /** POST /api/v1/auth/logout. */
  async logout(provider: string): Promise<{ logged_out: true; provider: string }> {
    this.checkProvider(provider);
    await this.flows.get(provider)?.close();
    await deleteCredential(this.deps.home, provider);
    await removeManagedProvider(this.deps.config, provider);
    return { logged_out: true, provider };
  }

  /** Status of `managed_provider` in GET /api/v1/auth; null when neither configured nor logged in. */
  async accountStatus(provider: string): Promise<AccountStatus | null> {
    const cred = await readCredential(this.deps.home, provider);
    if (!cred) return provider in this.deps.config.current().providers ? 'unauthenticated' : null;
    return accessStatus(cred, this.deps.clock.now());
  }

  /**
   * A usable access token for `provider`, refreshed first when it expires within a
   * minute. 40111 when not logged in; 40112 when the host rejected the refresh.
   */
  getAccessToken(provider: string = MANAGED_PROVIDER): Promise<string> {
    return this.tokens.accessToken(provider);
  }

  /** The stored credential's host client, for the usage and profile reads. */
  async clientFor(provider: string): Promise<OAuthClient | undefined> {
    const cred = await readCredential(this.deps.home, provider);
    return cred && new OAuthClient(cred.host, cred.client_id);
  }

  async close(): Promise<void> {
    await Promise.all([...this.flows.values()].map((f) => f.close()));
  }
}
