import type { ServiceKey } from '../config/defaults.ts';
import { isTable } from '../config/read.ts';
import type { ServiceConfig } from '../config/resolve.ts';

/**
 * JSON-over-HTTP client of the Part B `[services]` endpoints (protocol: docs/services.md).
 * Every failure is a ServiceError whose message is safe to show the model: the API key
 * and OAuth token are redacted from anything the service echoes back.
 */
export class ServiceError extends Error {}

/** Deadline of one service request (the turn's abort signal can end it sooner). */
export const SERVICE_TIMEOUT_MS = 30_000;
/** Largest response body read; a bigger one is an error rather than a memory hazard. */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
const EXCERPT_CHARS = 300;

/** What a service call needs from the daemon: the resolved config and a way to turn an OAuth key into a token. */
export interface ServiceDeps {
  services: Partial<Record<ServiceKey, ServiceConfig>>;
  /** `auth.getAccessToken`: the access token stored under a credential key. */
  accessToken(key: string): Promise<string>;
  signal: AbortSignal;
}

const ENV: Record<ServiceKey, { label: string; base: string; key: string }> = {
  pymodel_search: { label: 'web search', base: 'SVC_WEB_SEARCH_BASE_URL', key: 'SVC_WEB_SEARCH_API_KEY' },
  pymodel_fetch: { label: 'web fetch', base: 'SVC_WEB_FETCH_BASE_URL', key: 'SVC_WEB_FETCH_API_KEY' },
};

/** The endpoint of `key`, or the error telling the user how to configure it. */
function endpoint(deps: ServiceDeps, key: ServiceKey): ServiceConfig & { base_url: string } {
  const s = deps.services[key];
  if (s?.base_url) return { ...s, base_url: s.base_url };
  const e = ENV[key];
  throw new ServiceError(
    `the ${e.label} service is not configured: set base_url (and api_key) in the [services.${key}] section of config.toml, ` +
      `or the environment variables ${e.base} and ${e.key}`,
  );
}

/** Credential of the request: `api_key` first, else the OAuth reference's stored token, else none. */
async function bearer(deps: ServiceDeps, key: ServiceKey, s: ServiceConfig): Promise<string | undefined> {
  if (s.api_key) return s.api_key;
  if (!s.oauth) return undefined;
  const ref = isTable(s.oauth) ? s.oauth : {};
  if (ref.storage !== 'file' || typeof ref.key !== 'string' || !ref.key) {
    throw new ServiceError(`[services.${key}] oauth must be {storage = "file", key = "<credential key>"}`);
  }
  try {
    return await deps.accessToken(ref.key);
  } catch (err) {
    throw new ServiceError(`the ${ENV[key].label} service's OAuth credential is not usable: ${(err as Error).message}`);
  }
}

/** `base` with `path` appended, shown without query or user info (either may carry a secret). */
function target(base: string, path: string): { url: URL; shown: string } {
  let url: URL;
  try {
    url = new URL(base.replace(/\/+$/, '') + path);
  } catch {
    throw new ServiceError(`the configured base_url is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ServiceError('the configured base_url must be http or https');
  return { url, shown: `${url.origin}${url.pathname}` };
}

const redactor = (secret: string | undefined) => (s: string) => (secret ? s.split(secret).join('[redacted]') : s);

/** Reads the body as text, refusing one larger than MAX_RESPONSE_BYTES. */
async function readCapped(res: Response): Promise<string> {
  if (!res.body) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > MAX_RESPONSE_BYTES) throw new ServiceError(`the service answered more than ${MAX_RESPONSE_BYTES} bytes`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** POSTs `body` as JSON to `<base_url><path>` of service `key` and returns the parsed JSON answer. */
export async function callService(deps: ServiceDeps, key: ServiceKey, path: string, body: unknown): Promise<unknown> {
  const s = endpoint(deps, key);
  const { url, shown } = target(s.base_url, path);
  const token = await bearer(deps, key, s);
  const redact = redactor(token);
  const headers: Record<string, string> = { ...s.custom_headers, 'Content-Type': 'application/json', Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const timeout = AbortSignal.timeout(SERVICE_TIMEOUT_MS);
  const signal = AbortSignal.any([deps.signal, timeout]);
  let text: string;
  let status: number;
  try {
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal, redirect: 'error' });
    status = res.status;
    text = await readCapped(res);
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    if (deps.signal.aborted) throw new ServiceError(`the ${ENV[key].label} request was cancelled`);
    if (timeout.aborted) throw new ServiceError(`the ${ENV[key].label} service at ${shown} did not answer within ${SERVICE_TIMEOUT_MS / 1000} s`);
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new ServiceError(redact(`cannot reach the ${ENV[key].label} service at ${shown}: ${cause?.code ?? cause?.message ?? (err as Error).message}`));
  }
  if (status < 200 || status > 299) {
    const excerpt = text.replace(/\s+/g, ' ').trim().slice(0, EXCERPT_CHARS);
    throw new ServiceError(redact(`the ${ENV[key].label} service at ${shown} answered HTTP ${status}${excerpt ? `: ${excerpt}` : ''}`));
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ServiceError(`the ${ENV[key].label} service at ${shown} answered HTTP ${status} with a body that is not JSON`);
  }
}
