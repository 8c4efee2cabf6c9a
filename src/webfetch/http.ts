import http from 'node:http';
import https from 'node:https';
import { pipeline, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import { BlockedAddressError, checkLiteralHost, guardedLookup, type Network } from './addresses.ts';

/** Bounds of one WebFetch (docs/services.md "Fetching without a service"). */
export interface FetchLimits {
  /** Body bytes read (after decompression); reading stops there and the page is marked cut. */
  maxBytes: number;
  /** Deadline of the whole fetch: every redirect hop, headers and body. */
  timeoutMs: number;
  /** Deadline of each connection (name lookup and TCP connect). */
  connectTimeoutMs: number;
  /** Redirects followed; one more is an error. */
  maxRedirects: number;
}

/** A failure the model reads as the tool's error text. */
export class FetchError extends Error {}

export interface Fetched {
  /** The URL that answered (after redirects). */
  url: string;
  status: number;
  statusText: string;
  contentType: string;
  body: Buffer;
  /** The body went on past `maxBytes`. */
  cut: boolean;
}

export interface FetchOptions {
  limits: FetchLimits;
  networks: readonly Network[];
  signal: AbortSignal;
  userAgent: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const ACCEPT = 'text/html,application/xhtml+xml,text/markdown,text/plain,application/json;q=0.9,*/*;q=0.5';

/** GETs `url`, following redirects (each target's scheme and addresses checked again), within the limits. */
export async function fetchUrl(url: string, opts: FetchOptions): Promise<Fetched> {
  const timeout = AbortSignal.timeout(opts.limits.timeoutMs);
  const signal = AbortSignal.any([opts.signal, timeout]);
  let current = new URL(url);
  try {
    for (let hop = 0; ; hop++) {
      checkTarget(current, opts.networks);
      const res = await get(current, opts, signal);
      const location = res.headers.location;
      if (!REDIRECTS.has(res.statusCode ?? 0) || !location) return await readResponse(current, res, opts.limits.maxBytes);
      res.destroy();
      if (hop >= opts.limits.maxRedirects) throw new FetchError(`${url} redirected more than ${opts.limits.maxRedirects} times (last to ${location})`);
      current = nextUrl(current, location);
    }
  } catch (err) {
    if (err instanceof FetchError) throw err;
    if (err instanceof BlockedAddressError) throw new FetchError(err.message);
    if (opts.signal.aborted) throw new FetchError('the fetch was cancelled');
    if (timeout.aborted) throw new FetchError(`fetching ${current.href} did not finish within ${opts.limits.timeoutMs / 1000} s`);
    const e = err as NodeJS.ErrnoException;
    throw new FetchError(`cannot fetch ${current.href}: ${e.code ? `${e.code} ` : ''}${e.message}`);
  }
}

function checkTarget(url: URL, networks: readonly Network[]): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchError(`only http and https URLs are fetched, not ${url.protocol}`);
  checkLiteralHost(url.hostname, networks);
}

function nextUrl(from: URL, location: string): URL {
  try {
    return new URL(location, from);
  } catch {
    throw new FetchError(`${from.href} redirected to an invalid URL: ${location.slice(0, 200)}`);
  }
}

/** One request: its socket resolves names through the address policy and must connect within the connect deadline. */
function get(url: URL, opts: FetchOptions, signal: AbortSignal): Promise<http.IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, {
      method: 'GET', signal, agent: false, lookup: guardedLookup(opts.networks),
      headers: { 'User-Agent': opts.userAgent, Accept: ACCEPT, 'Accept-Encoding': 'gzip, deflate, br' },
    });
    req.once('socket', (socket) => {
      if (!socket.connecting) return;
      const timer = setTimeout(() => req.destroy(new FetchError(`cannot connect to ${url.host} within ${opts.limits.connectTimeoutMs / 1000} s`)), opts.limits.connectTimeoutMs);
      const clear = () => clearTimeout(timer);
      for (const e of ['connect', 'secureConnect', 'close']) socket.once(e, clear);
      req.once('response', clear);
    });
    req.once('response', resolve);
    req.once('error', reject);
    req.end();
  });
}

function decoded(res: http.IncomingMessage): Readable {
  const encoding = String(res.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip' ? zlib.createGunzip()
      : encoding === 'deflate' ? zlib.createInflate()
        : encoding === 'br' ? zlib.createBrotliDecompress()
          : undefined;
  if (!decoder) {
    if (encoding && encoding !== 'identity') throw new FetchError(`the page uses an unsupported content-encoding: ${encoding}`);
    return res;
  }
  // pipeline destroys both ends on an error, so the loop reading the decoder sees the response's failure.
  return pipeline(res, decoder, () => undefined);
}

/** The body up to `maxBytes` (decompressed); past that the connection is dropped. */
async function readResponse(url: URL, res: http.IncomingMessage, maxBytes: number): Promise<Fetched> {
  const chunks: Buffer[] = [];
  let size = 0;
  let cut = false;
  try {
    const body = decoded(res);
    for await (const chunk of body as AsyncIterable<Buffer>) {
      if (size + chunk.length > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - size));
        size = maxBytes;
        cut = true;
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } finally {
    res.destroy();
  }
  return {
    url: url.href, status: res.statusCode ?? 0, statusText: res.statusMessage ?? '',
    contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks, size), cut,
  };
}
