import * as v from 'valibot';
import type { ApiError } from '../protocol/errors.ts';
import { HostError, type OAuthClient } from './oauth-client.ts';

const Window = v.object({ duration: v.number(), unit: v.picklist(['minute', 'hour', 'day', 'week']) });

/** Core quota row `{name?, window?, used, limit, reset_at?}`. */
export const QuotaRow = v.object({
  name: v.optional(v.string()),
  window: v.optional(Window),
  used: v.number(),
  limit: v.number(),
  reset_at: v.optional(v.string()),
});

export const ExtraUsage = v.object({
  balance_cents: v.number(),
  total_cents: v.number(),
  monthly_charge_limit_enabled: v.boolean(),
  monthly_charge_limit_cents: v.number(),
  monthly_used_cents: v.number(),
  currency: v.string(),
});

/** What the host's `GET /api/usage` answers (the wire shape minus `kind`). */
export const UsageReport = v.object({
  summary: v.nullable(QuotaRow),
  limits: v.array(QuotaRow),
  extra_usage: v.nullable(ExtraUsage),
});

/** Core account profile `userInfo`: the always-present fields, extras passed through. */
export const UserInfo = v.looseObject({
  userId: v.string(),
  nickname: v.string(),
  status: v.string(),
  region: v.string(),
  userLevel: v.union([v.string(), v.number()]),
  userLevelName: v.string(),
  domain: v.string(),
  domainName: v.string(),
  globalId: v.optional(v.string()),
  bio: v.optional(v.string()),
  avatar: v.optional(v.string()),
  username: v.optional(v.string()),
  email: v.optional(v.string()),
  phone: v.optional(v.object({ countryCode: v.string(), number: v.string() })),
  createdTime: v.optional(v.union([v.string(), v.number()])),
  lastLoginTime: v.optional(v.union([v.string(), v.number()])),
});

export type InBandError = { kind: 'error'; message: string; status?: number };

/** A live read from the host, any failure reported in band (Core: "not as an envelope error"). */
export async function readAccount<S extends v.GenericSchema>(
  client: OAuthClient | undefined,
  token: () => Promise<string>,
  pathname: string,
  schema: S,
): Promise<{ kind: 'ok'; value: v.InferOutput<S> } | InBandError> {
  if (!client) return { kind: 'error', message: 'not logged in' };
  try {
    const body = await client.getJson(pathname, await token());
    const r = v.safeParse(schema, body);
    return r.success ? { kind: 'ok', value: r.output } : { kind: 'error', message: `malformed ${pathname} response from the OAuth host` };
  } catch (err) {
    if (err instanceof HostError) return { kind: 'error', message: err.message, ...(err.status ? { status: err.status } : {}) };
    return { kind: 'error', message: (err as ApiError).message };
  }
}
