import http from 'node:http';
import https from 'node:https';

/** How long a connection to another node may take before the node counts as unreachable. */
export const CONNECT_TIMEOUT_MS = 5_000;
/** Once connected: how long the other node may stay silent before the relay gives up on it. */
export const ANSWER_IDLE_MS = 60_000;

/** A request sent on to another node, as this node received it. */
export interface RelayRequest {
  method: string;
  /** The node's base URL (`http://host:port`, a path prefix allowed). */
  base: string;
  /** Path and query, as received. */
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** The other node's answer: passed back to the client unchanged (hop-by-hop headers aside). */
export interface RelayAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** The other node could not be reached (`connected` false: connect refused or timed out) or dropped the request. */
export class RelayError extends Error {
  override readonly name = 'RelayError';
  constructor(message: string, readonly connected: boolean, options?: ErrorOptions) {
    super(message, options);
  }
}

// Headers that belong to one connection (RFC 9110 7.6.1), never passed on; and the length, which Koa sets from the body.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'content-length']);

/** Headers of an answer without the hop-by-hop ones. */
export function endToEnd(headers: http.IncomingHttpHeaders): http.IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));
}

// A fresh connection per relayed request: a pooled one the other node closed meanwhile would fail a command that
// may already have been sent, and a command must not be sent twice.
const agents = { http: new http.Agent({ keepAlive: false }), https: new https.Agent({ keepAlive: false }) };

/**
 * Sends `r` to another node and reads its whole answer. A connect that fails or takes longer than
 * CONNECT_TIMEOUT_MS rejects with a RelayError (`connected` false): nothing reached the node. A connection lost
 * later, or silent for ANSWER_IDLE_MS, rejects with `connected` true: the node may have acted on it.
 */
export function relay(r: RelayRequest): Promise<RelayAnswer> {
  const target = new URL(r.base.replace(/\/+$/, '') + r.url);
  const secure = target.protocol === 'https:';
  return new Promise<RelayAnswer>((resolve, reject) => {
    let connected = false;
    const fail = (message: string, err?: Error) => reject(new RelayError(message, connected, { cause: err }));
    const req = (secure ? https : http).request(target, {
      method: r.method, agent: secure ? agents.https : agents.http,
      headers: { ...r.headers, 'content-length': String(r.body.length) },
    });
    const connectTimer = setTimeout(() => req.destroy(new Error(`no connection within ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS);
    req.once('socket', (socket) => {
      socket.once(secure ? 'secureConnect' : 'connect', () => {
        connected = true;
        clearTimeout(connectTimer);
        socket.setTimeout(ANSWER_IDLE_MS, () => req.destroy(new Error(`no answer for ${ANSWER_IDLE_MS} ms`)));
      });
    });
    req.once('error', (err) => {
      clearTimeout(connectTimer);
      fail(err.message, err);
    });
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      // A connection lost mid-answer is an 'error' (aborted), never an 'end': no short answer is passed on.
      res.once('error', (err) => fail(err.message, err));
      res.once('end', () => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.end(r.body);
  });
}
