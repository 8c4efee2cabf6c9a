import http from 'node:http';
import https from 'node:https';
import { markHere } from '../../engine/trace.ts';

/**
 * A `fetch` for the provider SDKs over node:http with keep-alive agents. Node's built-in fetch
 * (undici) costs about 1 ms more per request before the first byte, and more CPU per streamed
 * chunk, than node:http on the same socket; a model call is one POST with a JSON body whose
 * streamed answer is read once. Anything else (a Request object, a stream or form body) goes to
 * the built-in fetch. Failures keep fetch's shapes, which the SDKs and classifyError read:
 * `TypeError('fetch failed', {cause})` before the answer, `TypeError('terminated', {cause})` in
 * the body, and the signal's reason on abort. No `accept-encoding` is sent, so answers come plain.
 */
const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
};

export const nodeFetch: typeof globalThis.fetch = (input, init) => {
  const url = typeof input === 'string' ? new URL(input) : input instanceof URL ? input : undefined;
  const body = init?.body;
  const plainBody = body == null || typeof body === 'string' || body instanceof Uint8Array;
  if (!url || !plainBody || !(url.protocol in agents)) return globalThis.fetch(input, init);
  return send(url, init ?? {}, body as string | Uint8Array | null | undefined);
};

function send(url: URL, init: RequestInit, body: string | Uint8Array | null | undefined): Promise<Response> {
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(signal.reason);
  const headers = headerRecord(init.headers);
  if (body != null) headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  markHere('fetch.send');
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(url, { method: init.method ?? 'GET', headers, agent: agents[url.protocol as keyof typeof agents] });
    let settled = false;
    const onAbort = () => {
      req.destroy(signal!.reason);
      if (!settled) reject(signal!.reason);
      settled = true;
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    req.once('error', (err) => {
      signal?.removeEventListener('abort', onAbort);
      if (!settled) reject(new TypeError('fetch failed', { cause: err }));
      settled = true;
    });
    req.once('response', (res) => {
      markHere('fetch.headers');
      settled = true;
      resolve(toResponse(res, req, signal, () => signal?.removeEventListener('abort', onAbort)));
    });
    req.end(body ?? undefined);
  });
}

/**
 * The request headers as a lowercase record. The SDKs pass a plain object they built through
 * `Headers` already (validated, lowercase): it is copied as is, without another `Headers` pass.
 */
function headerRecord(given: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (given && !Array.isArray(given) && !(given instanceof Headers)) {
    for (const [k, v] of Object.entries(given)) if (v != null) out[k.toLowerCase()] = String(v);
    return out;
  }
  new Headers(given).forEach((v, k) => (out[k] = v));
  return out;
}

/** Wraps the answer: headers as a Headers object, the body as a web stream that pauses the socket under backpressure. */
function toResponse(res: http.IncomingMessage, req: http.ClientRequest, signal: AbortSignal | undefined, done: () => void): Response {
  const headers = new Headers();
  for (const [k, v] of Object.entries(res.headers)) {
    if (Array.isArray(v)) for (const x of v) headers.append(k, x);
    else if (v !== undefined) headers.set(k, v);
  }
  const status = res.statusCode ?? 0;
  // A body is not allowed on these statuses in the Response constructor.
  if (status === 204 || status === 304 || status < 200) {
    res.resume();
    done();
    return new Response(null, { status: status < 200 ? 502 : status, statusText: res.statusMessage ?? '', headers });
  }
  let finished = false;
  const stream = new ReadableStream<Uint8Array>({
    start(ctrl) {
      const fail = (err: unknown) => {
        if (finished) return;
        finished = true;
        done();
        ctrl.error(signal?.aborted ? signal.reason : new TypeError('terminated', { cause: err }));
      };
      res.on('data', (c: Buffer) => {
        markHere('fetch.data');
        if (finished) return;
        ctrl.enqueue(new Uint8Array(c.buffer, c.byteOffset, c.byteLength));
        if ((ctrl.desiredSize ?? 1) <= 0) res.pause();
      });
      res.once('end', () => {
        if (finished) return;
        finished = true;
        done();
        ctrl.close();
      });
      res.once('error', fail);
      res.once('close', () => fail(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET', name: 'SocketError' })));
      req.once('error', fail);
    },
    pull() {
      res.resume();
    },
    cancel() {
      finished = true;
      done();
      req.destroy();
    },
  });
  return new Response(stream, { status, statusText: res.statusMessage ?? '', headers });
}
