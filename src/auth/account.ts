import * as v from 'valibot';
import type { ApiError } from '../../protocol/errors.ts';
import { HostError, type OAuthClient } from './oauth-client.ts';
import { ExtraUsage, QuotaRow, UsageReport, UserInfo } from '../../protocol/schemas/account.ts';

export { ExtraUsage, QuotaRow, UsageReport, UserInfo };


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
