import http from 'node:http';
import https from 'node:https';
import type { WireTrace } from './types.ts';

/** Keep-alive agents shared by every model request (one TCP/TLS connection reused per upstream). */
export const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
};

/**
 * POSTs a JSON body and resolves with the answer once its headers are in. Rejects with the socket
 * error before that (connection refused, reset, TLS) or with the signal's reason on abort; an
 * abort after the headers destroys the answer (its `close` comes without `end`).
 */
export function postJson(
  url: URL, headers: Record<string, string>, body: string, signal: AbortSignal, trace?: WireTrace,
): Promise<http.IncomingMessage> {
  if (!(url.protocol in agents)) return Promise.reject(new Error(`unsupported URL scheme: ${url.protocol}`));
  if (signal.aborted) return Promise.reject(signal.reason);
  const mod = url.protocol === 'https:' ? https : http;
  trace?.('fetch.send');
  return new Promise((resolve, reject) => {
    const req = mod.request(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      agent: agents[url.protocol as keyof typeof agents],
    });
    let settled = false;
    const onAbort = () => {
      req.destroy(signal.reason);
      if (!settled) reject(signal.reason);
      settled = true;
    };
    signal.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      reject(err);
    });
    req.once('response', (res) => {
      trace?.('fetch.headers');
      settled = true;
      res.on('error', () => undefined); // its `close` reports a cut-off answer
      res.once('close', () => signal.removeEventListener('abort', onAbort));
      resolve(res);
    });
    req.end(body);
  });
}
