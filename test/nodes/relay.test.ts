import test from 'ava';
import http from 'node:http';
import net from 'node:net';
import { endToEnd, relay, RelayError } from '../../src/http/relay.ts';

// The relay of a forwarded command to another node (src/http/relay.ts), against real loopback servers.

/** A loopback server closed when the test ends; its base URL. */
async function serve(t: { teardown(fn: () => unknown): void }, server: net.Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise((r) => server.close(r)));
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

const request = (base: string) => ({ method: 'POST', base, url: '/api/v1/x?y=1', headers: { 'content-type': 'application/json' }, body: Buffer.from('{"a":1}') });

test('the request arrives as sent (method, path under the base\'s prefix, query, headers, body); the answer comes back whole', async (t) => {
  let seen: { method?: string; url?: string; type?: string; length?: string; body?: string } = {};
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    seen = { method: req.method, url: req.url, type: req.headers['content-type'], length: req.headers['content-length'], body: Buffer.concat(chunks).toString() };
    res.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'r1', 'keep-alive': 'timeout=5' });
    res.end('{"code":0}');
  });
  const base = await serve(t, server);
  const answer = await relay(request(`${base}/node-a/`));
  t.deepEqual(seen, { method: 'POST', url: '/node-a/api/v1/x?y=1', type: 'application/json', length: '7', body: '{"a":1}' });
  t.is(answer.status, 201);
  t.is(answer.body.toString(), '{"code":0}');
  const kept = endToEnd(answer.headers);
  t.like(kept, { 'content-type': 'application/json', 'x-request-id': 'r1' });
  t.false('keep-alive' in kept || 'connection' in kept || 'content-length' in kept, 'hop-by-hop headers stay behind');
});

test('a refused connection is a RelayError before anything was sent (connected: false)', async (t) => {
  const probe = net.createServer();
  const base = await new Promise<string>((resolve) => probe.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(probe.address() as net.AddressInfo).port}`)));
  await new Promise((r) => probe.close(r));
  const err = await t.throwsAsync(relay(request(base)), { instanceOf: RelayError });
  t.false(err!.connected);
  t.regex(err!.message, /ECONNREFUSED/);
});

test('a connection dropped after the request was sent is a RelayError with connected: true (the node may have acted)', async (t) => {
  const server = net.createServer((socket) => socket.once('data', () => socket.destroy()));
  const base = await serve(t, server);
  const err = await t.throwsAsync(relay(request(base)), { instanceOf: RelayError });
  t.true(err!.connected);
});

test('a connection dropped in the middle of the answer is a RelayError, not a short answer', async (t) => {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    res.write('{"code":0,');
    setTimeout(() => res.socket?.destroy(), 20);
  });
  const base = await serve(t, server);
  const err = await t.throwsAsync(relay(request(base)), { instanceOf: RelayError });
  t.true(err!.connected);
});
