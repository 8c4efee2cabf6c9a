import type { Logger } from '../lib/logger.ts';
import { Codes } from '../../protocol/codes.ts';
import { ApiError } from '../../protocol/errors.ts';
import { readCredential, writeCredential, type StoredCredential } from './credentials.ts';
import { OAuthClient } from './oauth-client.ts';

export type AccountStatus = 'authenticated' | 'expired' | 'revoked' | 'unauthenticated';

/** A token expiring within this window is refreshed before use. */
export const REFRESH_SKEW_MS = 60_000;

const expiresAt = (c: StoredCredential) => (c.expires_at ? Date.parse(c.expires_at) : Infinity);

/** `authenticated` while the access token is valid or can be refreshed; `expired` / `revoked` once it cannot. */
export function accessStatus(c: StoredCredential, now: Date): AccountStatus {
  if (c.state) return c.state;
  if (expiresAt(c) <= now.getTime() && !c.refresh_token) return 'expired';
  return 'authenticated';
}

/** Hands out access tokens, refreshing them (once at a time per provider) and writing the refreshed token back. */
export class TokenKeeper {
  private readonly refreshing = new Map<string, Promise<string>>();

  constructor(private readonly deps: { home: string; now: () => Date; log: Logger }) {}

  async accessToken(provider: string): Promise<string> {
    const cred = await readCredential(this.deps.home, provider);
    if (!cred) throw new ApiError(Codes.PROVIDER_NO_CREDENTIAL, `provider ${provider} is not logged in`);
    const status = accessStatus(cred, this.deps.now());
    if (status !== 'authenticated') throw rejected(provider, status);
    if (expiresAt(cred) - REFRESH_SKEW_MS > this.deps.now().getTime()) return cred.access_token;
    let run = this.refreshing.get(provider);
    if (!run) {
      run = this.refresh(provider, cred).finally(() => this.refreshing.delete(provider));
      this.refreshing.set(provider, run);
    }
    return run;
  }

  private async refresh(provider: string, cred: StoredCredential): Promise<string> {
    const client = new OAuthClient(cred.host, cred.client_id);
    let outcome;
    try {
      outcome = await client.refresh(cred.refresh_token!);
    } catch (err) {
      // Host unreachable: a token not yet past its expiry is still worth trying.
      if (expiresAt(cred) > this.deps.now().getTime()) return cred.access_token;
      throw new ApiError(Codes.INTERNAL, `cannot refresh the ${provider} token: ${(err as Error).message}`);
    }
    if (outcome.kind === 'error') {
      if (outcome.status >= 500) throw new ApiError(Codes.INTERNAL, `cannot refresh the ${provider} token: HTTP ${outcome.status}`);
      const state = outcome.error === 'expired_token' ? 'expired' : 'revoked';
      await writeCredential(this.deps.home, provider, { ...cred, state });
      this.deps.log.warn({ provider, error: outcome.error }, 'OAuth refresh rejected');
      throw rejected(provider, state);
    }
    const t = outcome.token;
    const now = this.deps.now();
    await writeCredential(this.deps.home, provider, {
      ...cred,
      access_token: t.access_token,
      refresh_token: t.refresh_token ?? cred.refresh_token,
      token_type: t.token_type ?? cred.token_type,
      scope: t.scope ?? cred.scope,
      expires_at: t.expires_in !== undefined ? new Date(now.getTime() + t.expires_in * 1000).toISOString() : undefined,
      obtained_at: now.toISOString(),
    });
    return t.access_token;
  }
}

function rejected(provider: string, status: string): ApiError {
  return new ApiError(Codes.PROVIDER_CREDENTIAL_REJECTED, `the ${provider} login is ${status}; log in again`);
}
