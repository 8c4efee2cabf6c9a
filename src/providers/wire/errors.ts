import { APICallError } from '@ai-sdk/provider';
import type { WireError } from './types.ts';

/**
 * A 429 that says the quota or balance is used up (final, never retried). A 429 that merely mentions
 * quota is a rate limit: Gemini's ordinary one reads "Resource has been exhausted (e.g. check quota)".
 */
const QUOTA_EXHAUSTED = new RegExp([
  String.raw`exceeded (your |the )?(current )?quota`, String.raw`quota (has been |is |was )?(exceeded|exhausted|used up)`,
  String.raw`insufficient[_ ]?(quota|balance|funds|credits?)`, String.raw`(balance|credits?) (is |are |has been |have been )?(exhausted|insufficient|too low|depleted|used up)`,
  String.raw`billing`, String.raw`out of credits?`,
].join('|'), 'i');
const TRANSIENT_TEXT = /overloaded|rate.?limit|unavailable|timeout|timed out|internal|server_error|api_error|temporar/i;
/**
 * A provider refusing a request longer than the model's context window, in each protocol's words: Anthropic
 * "prompt is too long: N tokens > M maximum" and "input length and `max_tokens` exceed context limit"; OpenAI chat
 * completions and Responses `context_length_exceeded` ("maximum context length is N tokens", "Your input exceeds the
 * context window of this model"); Gemini "The input token count (N) exceeds the maximum number of tokens allowed (M)";
 * and the gateways' phrasings (vLLM, OpenRouter, Mistral, Bedrock "Input is too long", Moonshot "exceeded model token
 * limit", "too many tokens", "reduce the length of the messages").
 */
const CONTEXT_OVERFLOW = new RegExp([
  'prompt is too long', '(?:input|prompt|request) is too (?:long|large)', 'context[_ ]length[_ ]exceeded', 'maximum context length',
  'exceed\\w*[^.]{0,40}context', 'context (?:window|length|limit)[^.]{0,20}exceed', 'input token count[^.]*exceed',
  'exceeds? the maximum number of (?:input )?tokens', 'too many (?:input )?tokens', 'reduce the length of the (?:messages|input|prompt)',
  'exceeded (?:the )?model(?:\'s)? token limit',
].join('|'), 'i');
const NET_CODES = new Set([
  'ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH',
  'ENETUNREACH', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CLOSED',
]);

/** A failure raised before any request is sent (bad config, missing credentials). */
export class WireConfigError extends Error {
  constructor(message: string, readonly kind: 'auth' | 'bad_request' = 'bad_request') {
    super(message);
    this.name = 'WireConfigError';
  }
}

/** Classifies any failure of a model request (thrown, or an in-stream error part) per Part B loop_control. */
export function classifyError(err: unknown, signal?: AbortSignal): WireError {
  if (signal?.aborted) {
    // A deadline composed into the signal (AbortSignal.timeout / AbortSignal.any) is a timeout, which is transient.
    const reason = signal.reason as { name?: string } | undefined;
    return reason?.name === 'TimeoutError' ? { kind: 'transient', message: 'request timed out' } : { kind: 'aborted', message: 'request aborted' };
  }
  if (err instanceof WireConfigError) return { kind: err.kind, message: err.message };
  if (APICallError.isInstance(err)) return fromApiCall(err);
  if (isNetworkError(err)) return { kind: 'transient', message: `connection error: ${messageOf(err)}` };
  const text = describe(err);
  if (CONTEXT_OVERFLOW.test(text)) return { kind: 'context_overflow', message: messageOf(err) };
  if (QUOTA_EXHAUSTED.test(text)) return { kind: 'quota', message: messageOf(err) };
  if (TRANSIENT_TEXT.test(text)) return { kind: 'transient', message: messageOf(err) };
  return { kind: 'other', message: messageOf(err) };
}

function fromApiCall(err: APICallError): WireError {
  const status = err.statusCode;
  const message = apiMessage(err);
  // No status, or a body that broke after a 2xx: the connection failed, not the request.
  if (status !== undefined && status < 400 && APICallError.isInstance(err.cause)) return fromApiCall(err.cause);
  if (status === undefined || (status < 400 && isNetworkError(err.cause))) return { kind: 'transient', message: `connection error: ${message}` };
  return fromStatus(status, message, err.responseHeaders, err.responseBody);
}

/**
 * An HTTP failure answer of a model request: `body` is the answer's text, whose JSON
 * `error.message` (the OpenAI-style error shape most gateways use) becomes the message.
 */
export function httpError(status: number, statusText: string, headers: Record<string, string>, body: string): WireError {
  return fromStatus(status, jsonErrorMessage(body) ?? (statusText || `HTTP ${status}`), headers, body);
}

function fromStatus(status: number, message: string, headers: Record<string, string> | undefined, body: string | undefined): WireError {
  const retry = retryAfterMs(headers);
  const base = { status, message, ...(retry !== undefined ? { retry_after_ms: retry } : {}) };
  if (status === 429) return { ...base, kind: QUOTA_EXHAUSTED.test(`${message}\n${body ?? ''}`) ? 'quota' : 'transient' };
  if (status === 401 || status === 403) return { ...base, kind: 'auth' };
  // Before the 5xx rule: a gateway answering an over-long prompt with a 500 must not be retried as it is.
  // 413: the request body is over the provider's size limit (Anthropic `request_too_large`); a smaller context fits.
  if (status === 413 || CONTEXT_OVERFLOW.test(`${message} ${body ?? ''}`)) return { ...base, kind: 'context_overflow' };
  if (status === 408 || status >= 500) return { ...base, kind: 'transient' };
  if (status >= 400) return { ...base, kind: 'bad_request' };
  return { ...base, kind: 'other' };
}

function jsonErrorMessage(body: string): string | undefined {
  try {
    const m = (JSON.parse(body) as { error?: { message?: unknown } } | null)?.error?.message;
    return typeof m === 'string' && m ? m : undefined;
  } catch {
    return undefined;
  }
}

function apiMessage(err: APICallError): string {
  const data = err.data as { error?: { message?: unknown } } | undefined;
  const m = data?.error?.message;
  return typeof m === 'string' && m ? m : err.message;
}

function retryAfterMs(headers: Record<string, string> | undefined): number | undefined {
  if (!headers) return undefined;
  const ms = Number(headers['retry-after-ms']);
  if (Number.isFinite(ms) && ms >= 0 && headers['retry-after-ms']) return ms;
  const raw = headers['retry-after'];
  if (!raw) return undefined;
  const secs = Number(raw);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Walks the cause chain for socket-level failures (refused, reset, dropped mid-body, timeouts). */
function isNetworkError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const o = e as { code?: unknown; name?: unknown; message?: unknown };
    if (typeof o.code === 'string' && NET_CODES.has(o.code)) return true;
    if (o.name === 'TimeoutError' || o.name === 'AbortError' || o.name === 'SocketError') return true;
    if (o.name === 'TypeError' && (o.message === 'terminated' || o.message === 'fetch failed')) return true;
  }
  return false;
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (err && typeof err === 'object') {
    const o = err as { message?: unknown; error?: { message?: unknown } };
    if (typeof o.error?.message === 'string') return o.error.message;
    if (typeof o.message === 'string') return o.message;
    return JSON.stringify(err).slice(0, 500);
  }
  return String(err);
}

function describe(err: unknown): string {
  if (err instanceof Error) return `${err.name} ${err.message}`;
  try {
    return JSON.stringify(err) ?? String(err);
  } catch {
    return String(err);
  }
}
