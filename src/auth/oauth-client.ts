import * as v from 'valibot';

/** Every call to the OAuth host gives up after this long. */
const TIMEOUT_MS = 15_000;
export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** RFC 8628 section 3.2 device authorization response. */
export const DeviceCodeResponse = v.object({
  device_code: v.string(),
  user_code: v.string(),
  verification_uri: v.string(),
  verification_uri_complete: v.optional(v.string()),
  expires_in: v.pipe(v.number(), v.minValue(1)),
  interval: v.optional(v.pipe(v.number(), v.minValue(0))),
});
export type DeviceCode = v.InferOutput<typeof DeviceCodeResponse>;

/** RFC 6749 section 5.1 token response. */
export const TokenResponse = v.object({
  access_token: v.string(),
  token_type: v.optional(v.string()),
  expires_in: v.optional(v.number()),
  refresh_token: v.optional(v.string()),
  scope: v.optional(v.string()),
});
export type Token = v.InferOutput<typeof TokenResponse>;

const ErrorResponse = v.object({ error: v.string(), error_description: v.optional(v.string()) });

/** The managed model list served by the host (`GET /api/models`). */
export const ModelListResponse = v.object({
  base_url: v.string(),
  default_model: v.optional(v.string()),
  models: v.array(v.looseObject({
    model: v.string(),
    max_context_size: v.pipe(v.number(), v.integer(), v.minValue(1)),
    display_name: v.optional(v.string()),
    capabilities: v.optional(v.array(v.string())),
    support_efforts: v.optional(v.array(v.string())),
    default_effort: v.optional(v.string()),
    max_output_size: v.optional(v.number()),
  })),
});
export type ModelList = v.InferOutput<typeof ModelListResponse>;

/** A failure talking to the host: `status` is the HTTP status when one came back, `error` the OAuth error code. */
export class HostError extends Error {
  constructor(message: string, readonly status?: number, readonly error?: string) {
    super(message);
  }
}

export type TokenOutcome = { kind: 'token'; token: Token } | { kind: 'error'; error: string; description?: string; status: number };

async function call(url: string, init: RequestInit, abort?: AbortSignal): Promise<Response> {
  const timeout = AbortSignal.timeout(TIMEOUT_MS);
  try {
    return await fetch(url, { ...init, signal: abort ? AbortSignal.any([timeout, abort]) : timeout });
  } catch (err) {
    throw new HostError(`OAuth host unreachable: ${(err as Error).message}`);
  }
}

async function json(res: Response): Promise<unknown> {
  try {
    return await res.json();
  } catch {
    throw new HostError(`OAuth host answered HTTP ${res.status} without JSON`, res.status);
  }
}

function parse<S extends v.GenericSchema>(schema: S, x: unknown, what: string, status?: number): v.InferOutput<S> {
  const r = v.safeParse(schema, x);
  if (!r.success) throw new HostError(`malformed ${what} from the OAuth host`, status);
  return r.output;
}

const form = (fields: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
  body: new URLSearchParams(fields).toString(),
});

/** Client of the endpoints we use on the OAuth host (docs/login.md "Host endpoints"). */
export class OAuthClient {
  constructor(readonly host: string, readonly clientId: string) {}

  /** `POST /oauth/device/code` (RFC 8628 section 3.1). */
  async deviceCode(): Promise<DeviceCode> {
    const res = await call(`${this.host}/oauth/device/code`, form({ client_id: this.clientId }));
    const body = await json(res);
    if (!res.ok) throw new HostError(`device authorization failed: ${errorText(body, res.status)}`, res.status);
    return parse(DeviceCodeResponse, body, 'device authorization response', res.status);
  }

  /** One poll of `POST /oauth/token` with the device-code grant; `abort` ends it when the flow is cancelled. */
  pollToken(deviceCode: string, abort?: AbortSignal): Promise<TokenOutcome> {
    return this.token({ grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: this.clientId }, abort);
  }

  /** `POST /oauth/token` with the refresh-token grant. */
  refresh(refreshToken: string): Promise<TokenOutcome> {
    return this.token({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: this.clientId });
  }

  private async token(fields: Record<string, string>, abort?: AbortSignal): Promise<TokenOutcome> {
    const res = await call(`${this.host}/oauth/token`, form(fields), abort);
    const body = await json(res);
    if (res.ok) return { kind: 'token', token: parse(TokenResponse, body, 'token response', res.status) };
    const e = v.safeParse(ErrorResponse, body);
    if (!e.success) throw new HostError(`token endpoint answered HTTP ${res.status}`, res.status);
    return { kind: 'error', error: e.output.error, description: e.output.error_description, status: res.status };
  }

  /** An authenticated GET on the host (`/api/usage`, `/api/user`, `/api/models`). */
  async getJson(pathname: string, accessToken: string): Promise<unknown> {
    const res = await call(`${this.host}${pathname}`, { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } });
    if (!res.ok) {
      const body = await res.json().catch(() => undefined);
      throw new HostError(`${pathname} failed: ${errorText(body, res.status)}`, res.status);
    }
    return json(res);
  }

  async models(accessToken: string): Promise<ModelList> {
    return parse(ModelListResponse, await this.getJson('/api/models', accessToken), 'model list');
  }
}

function errorText(body: unknown, status: number): string {
  const b = body as { error_description?: unknown; error?: unknown; message?: unknown } | undefined;
  for (const x of [b?.error_description, b?.message, b?.error]) if (typeof x === 'string' && x) return x;
  return `HTTP ${status}`;
}
