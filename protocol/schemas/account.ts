import * as v from 'valibot';

/** The managed provider's account: plan usage and the profile (Core "GET /api/v1/auth/status"). */

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
