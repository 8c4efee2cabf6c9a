import * as v from 'valibot';
import { readAccount, UsageReport, UserInfo } from '../../auth/account.ts';
import { modelsReady, providersCount } from '../../auth/readiness.ts';
import { MANAGED_PROVIDER, type AuthService } from '../../auth/service.ts';
import { Codes } from '../../../protocol/codes.ts';
import { route, type RouteDef } from '../route.ts';
import {
  AuthProviderQuery, AuthStatusData, AuthStatusQuery, AuthSummary, LoginBody, LoginCancelResult, LoginFlowSnapshot, LogoutBody, LogoutResult, OAuthRegion,
} from '../../../protocol/schemas/auth.ts';
import type { ConfigService } from '../../config/service.ts';

const tags = ['auth'];
/** The aliases take the same inputs (`provider` defaults to the managed one). */
const AliasProviderQuery = AuthProviderQuery;
const AliasLoginBody = LoginBody;
const providerCodes = [Codes.VALIDATION, Codes.PROVIDER_NOT_FOUND];

export interface AuthRouteDeps {
  auth: AuthService;
  config: ConfigService;
}

/** Core "Login and usage": the managed provider's device login, its account reads and the readiness summary. */
export function authRoutes(deps: AuthRouteDeps): RouteDef[] {
  return [...canonicalRoutes(deps), ...aliasRoutes(deps.auth)];
}

/** The account's usage report, or with view=profile its profile, read live from the provider. */
async function accountView(auth: AuthService, provider: string, view: 'usage' | 'profile') {
  auth.checkProvider(provider);
  const client = await auth.clientFor(provider);
  const token = () => auth.getAccessToken(provider);
  if (view === 'profile') {
    const r = await readAccount(client, token, '/api/user', UserInfo);
    return r.kind === 'ok' ? { kind: 'ok' as const, userInfo: r.value } : r;
  }
  const r = await readAccount(client, token, '/api/usage', UsageReport);
  return r.kind === 'ok' ? { kind: 'ok' as const, ...r.value } : r;
}

function canonicalRoutes(deps: AuthRouteDeps): RouteDef[] {
  const auth = deps.auth;
  return [
    route({
      method: 'GET', path: '/api/v1/auth', operationId: 'getAuth', summary: 'Model readiness and the managed provider login state', tags,
      data: AuthSummary,
      handler: async () => {
        const c = deps.config.current();
        const status = await auth.accountStatus(MANAGED_PROVIDER);
        return {
          models_ready: modelsReady(c),
          providers_count: providersCount(c),
          managed_provider: status && { name: MANAGED_PROVIDER, status },
        };
      },
    }),
    route({
      method: 'POST', path: '/api/v1/auth/login', operationId: 'startLogin', summary: 'Start a device-authorization login (aborts a pending one)', tags,
      body: LoginBody, data: LoginFlowSnapshot, codes: [...providerCodes, Codes.INTERNAL],
      handler: ({ body }) => auth.login(body.provider, body.region),
    }),
    route({
      method: 'GET', path: '/api/v1/auth/login', operationId: 'getLogin', summary: 'The last login flow of the provider, or null', tags,
      query: AuthProviderQuery, data: v.nullable(LoginFlowSnapshot), codes: providerCodes,
      handler: ({ query }) => auth.snapshot(query.provider),
    }),
    route({
      method: 'DELETE', path: '/api/v1/auth/login', operationId: 'cancelLogin', summary: 'Cancel a pending login flow', tags,
      query: AuthProviderQuery, data: LoginCancelResult, codes: providerCodes,
      handler: ({ query }) => auth.cancel(query.provider),
    }),
    route({
      method: 'POST', path: '/api/v1/auth/logout', operationId: 'logout', summary: 'Discard the credential and remove the managed provider', tags,
      body: LogoutBody, data: LogoutResult, codes: providerCodes,
      handler: ({ body }) => auth.logout(body.provider),
    }),
    route({
      method: 'GET', path: '/api/v1/auth/status', operationId: 'getAuthStatus',
      summary: 'Plan usage and limits (or, with view=profile, the account profile), fetched live; upstream failures in band', tags,
      query: AuthStatusQuery, data: AuthStatusData, codes: providerCodes,
      handler: ({ query }) => accountView(auth, query.provider, query.view),
    }),
  ];
}

/** Aliases under the names web clients call (spec/clients.md D1, E15). */
function aliasRoutes(auth: AuthService): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/v1/oauth/login', operationId: 'startLoginAlias', summary: 'Alias of POST /api/v1/auth/login (web clients)', tags,
      body: AliasLoginBody, data: LoginFlowSnapshot, codes: [...providerCodes, Codes.INTERNAL],
      handler: ({ body }) => auth.login(body.provider, body.region),
    }),
    route({
      method: 'GET', path: '/api/v1/oauth/login', operationId: 'getLoginAlias', summary: 'Alias of GET /api/v1/auth/login (web clients)', tags,
      query: AliasProviderQuery, data: v.nullable(LoginFlowSnapshot), codes: providerCodes,
      handler: ({ query }) => auth.snapshot(query.provider),
    }),
    route({
      method: 'DELETE', path: '/api/v1/oauth/login', operationId: 'cancelLoginAlias', summary: 'Alias of DELETE /api/v1/auth/login (web clients)', tags,
      query: AliasProviderQuery, data: LoginCancelResult, codes: providerCodes,
      handler: ({ query }) => auth.cancel(query.provider),
    }),
    route({
      method: 'POST', path: '/api/v1/oauth/logout', operationId: 'logoutAlias', summary: 'Alias of POST /api/v1/auth/logout (web clients)', tags,
      body: AliasProviderQuery, data: LogoutResult, codes: providerCodes,
      handler: ({ body }) => auth.logout(body.provider),
    }),
    route({
      method: 'GET', path: '/api/v1/oauth/usage', operationId: 'getOAuthUsage', summary: 'Alias of GET /api/v1/auth/status (web clients)', tags,
      query: AliasProviderQuery, data: AuthStatusData, codes: providerCodes,
      handler: ({ query }) => accountView(auth, query.provider, 'usage'),
    }),
    route({
      method: 'GET', path: '/api/v1/oauth/userinfo', operationId: 'getOAuthUserInfo', summary: 'Alias of GET /api/v1/auth/status?view=profile (web clients)', tags,
      query: AliasProviderQuery, data: AuthStatusData, codes: providerCodes,
      handler: ({ query }) => accountView(auth, query.provider, 'profile'),
    }),
    route({
      method: 'GET', path: '/api/v1/oauth/region', operationId: 'getOAuthRegion', summary: 'The OAuth region, derived locally', tags,
      data: OAuthRegion,
      handler: async () => ({ region: await auth.region() }),
    }),
  ];
}
