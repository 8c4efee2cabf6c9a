import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import mime from 'mime-types';

/**
 * A same-origin front for the published web UI: its static `dist-web/` on every non-/api path, and /api/* (HTTP and
 * the WebSocket upgrade) passed through to the daemon byte for byte, with one rewrite each way:
 *
 * - The WebSocket subprotocol the UI offers carries the token as `kimi-code.bearer.<token>`; the daemon reads
 *   `svc-code.bearer.<token>` (docs/websocket.md "Connecting"). The request's offer is renamed, and the daemon's
 *   choice in the 101 answer is renamed back: a browser closes a socket whose server picked a subprotocol it did
 *   not offer, so without the second rewrite the first one is useless.
 *
 * Nothing else is changed: no header, no body, no frame.
 */

const UI_PREFIX = 'kimi-code.bearer.';
const DAEMON_PREFIX = 'svc-code.bearer.';

export interface UiProxy {
  url: string;
  close(): Promise<void>;
}

const isApi = (p: string) => p === '/api' || p.startsWith('/api/');

/** Serves `root` (with index.html for client routes) and forwards /api to `daemon` (`http://host:port`). */
export async function startUiProxy(root: string, daemon: string): Promise<UiProxy> {
  const target = new URL(daemon);
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    if (isApi(p)) forward(req, res);
    else void serveStatic(root, p, res);
  });
  const forward = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const up = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.rawHeaders);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  };
  server.on('upgrade', (req, client: Socket, head: Buffer) => {
    const headers = { ...req.headers };
    const offered = headers['sec-websocket-protocol'];
    if (typeof offered === 'string') headers['sec-websocket-protocol'] = offered.split(',').map((s) => rename(s.trim(), UI_PREFIX, DAEMON_PREFIX)).join(', ');
    const up = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers });
    up.on('upgrade', (r, upstream: Socket, upHead: Buffer) => {
      const lines = [`HTTP/1.1 ${r.statusCode} ${r.statusMessage}`];
      for (let i = 0; i < r.rawHeaders.length; i += 2) {
        const [k, x] = [r.rawHeaders[i]!, r.rawHeaders[i + 1]!];
        lines.push(`${k}: ${k.toLowerCase() === 'sec-websocket-protocol' ? rename(x, DAEMON_PREFIX, UI_PREFIX) : x}`);
      }
      client.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (upHead.length) client.write(upHead);
      if (head.length) upstream.write(head);
      upstream.pipe(client).pipe(upstream);
      for (const s of [upstream, client]) track(s);
      upstream.on('close', () => client.destroy());
      client.on('close', () => upstream.destroy());
    });
    // A refused upgrade (401, 403, ...) is a plain HTTP answer: hand it to the browser as it came.
    up.on('response', (r) => {
      const lines = [`HTTP/1.1 ${r.statusCode} ${r.statusMessage}`];
      for (let i = 0; i < r.rawHeaders.length; i += 2) lines.push(`${r.rawHeaders[i]}: ${r.rawHeaders[i + 1]}`);
      client.write(`${lines.join('\r\n')}\r\n\r\n`);
      r.pipe(client);
    });
    up.on('error', () => client.destroy());
    client.on('error', () => up.destroy());
    up.end();
  });
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  server.on('connection', track);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

function rename(protocol: string, from: string, to: string): string {
  return protocol.startsWith(from) ? to + protocol.slice(from.length) : protocol;
}

async function serveStatic(root: string, urlPath: string, res: http.ServerResponse): Promise<void> {
  let file = path.join(root, decodeURIComponent(urlPath));
  if (!file.startsWith(root + path.sep)) file = path.join(root, 'index.html');
  let st = await stat(file).catch(() => undefined);
  // A client route (no file, no extension) is the app's page.
  if (!st?.isFile() && !path.extname(urlPath)) {
    file = path.join(root, 'index.html');
    st = await stat(file).catch(() => undefined);
  }
  if (!st?.isFile()) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    return;
  }
  res.writeHead(200, { 'content-type': mime.contentType(path.extname(file)) || 'application/octet-stream', 'content-length': st.size });
  createReadStream(file).pipe(res);
}
