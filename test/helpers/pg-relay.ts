import net from 'node:net';

/** A TCP relay to the test PostgreSQL that can be cut (connections reset, new ones refused) and restored. */
export async function pgRelay(t: { teardown(fn: () => unknown): void }, url: string): Promise<{ url: string; cut(): Promise<void>; restore(): Promise<void> }> {
  const target = new URL(url);
  const sockets = new Set<net.Socket>();
  const relay = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => s.destroy()); // a reset is what this relay is for
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
  const port = (relay.address() as net.AddressInfo).port;
  // Registered first, so it runs last (teardowns run in reverse): after the journal through it is closed.
  t.teardown(() => {
    relay.close();
    for (const s of sockets) s.destroy();
  });
  const through = Object.assign(new URL(url), { port: String(port) }).toString();
  return {
    url: through,
    cut: () => new Promise<void>((r) => {
      relay.close(() => r());
      for (const s of sockets) s.resetAndDestroy();
    }),
    restore: () => new Promise<void>((r) => relay.listen(port, '127.0.0.1', r)),
  };
}
