import * as v from 'valibot';
import { ExtraUsage, QuotaRow, UserInfo } from './account.ts';
import { REGIONS } from './enums.ts';
import { Id } from './common.ts';

const Provider = v.optional(Id, 'managed');
const FLOW_STATUSES = ['pending', 'authenticated', 'denied', 'expired', 'cancelled'] as const;

/** Query of the login routes: `provider` defaults to `managed`. */
export const AuthProviderQuery = v.object({ provider: Provider });

/** POST /api/v1/auth/login body. */
export const LoginBody = v.object({
  provider: Provider,
  /** Overrides the region resolution for this login. */
  region: v.optional(v.picklist(REGIONS, `must be one of ${REGIONS.join(', ')}`)),
});

/** POST /api/v1/auth/logout body. */
export const LogoutBody = v.object({ provider: Provider });

/** GET /api/v1/auth/status query: `view=profile` gives the account profile instead of the plan usage. */
export const AuthStatusQuery = v.object({
  provider: Provider,
  view: v.optional(v.picklist(['usage', 'profile'], 'must be usage or profile'), 'usage'),
});

/** Core "Login flow snapshot". */
export const LoginFlowSnapshot = v.object({
  flow_id: v.string(),
  provider: v.string(),
  status: v.picklist(FLOW_STATUSES),
  verification_uri: v.optional(v.string()),
  verification_uri_complete: v.optional(v.string()),
  user_code: v.optional(v.string()),
  expires_in: v.optional(v.number()),
  expires_at: v.optional(v.string()),
  interval: v.optional(v.number()),
  resolved_at: v.optional(v.string()),
  error_message: v.optional(v.string()),
});

export const AuthSummary = v.object({
  models_ready: v.boolean(),
  providers_count: v.number(),
  managed_provider: v.nullable(v.object({
    name: v.string(),
    status: v.picklist(['authenticated', 'expired', 'revoked', 'unauthenticated']),
  })),
});

export const LoginCancelResult = v.object({ cancelled: v.boolean(), status: v.nullable(v.picklist(FLOW_STATUSES)) });
export const LogoutResult = v.object({ logged_out: v.literal(true), provider: v.string() });

const InBandError = v.object({ kind: v.literal('error'), message: v.string(), status: v.optional(v.number()) });

/** GET /api/v1/auth/status data (both views). */
export const AuthStatusData = v.union([
  v.object({ kind: v.literal('ok'), summary: v.nullable(QuotaRow), limits: v.array(QuotaRow), extra_usage: v.nullable(ExtraUsage) }),
  v.object({ kind: v.literal('ok'), userInfo: UserInfo }),
  InBandError,
]);

export const OAuthRegion = v.object({ region: v.picklist(REGIONS) });
