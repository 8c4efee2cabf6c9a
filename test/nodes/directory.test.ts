import test, { type ExecutionContext } from 'ava';
import { Writable } from 'node:stream';
import pg from 'pg';
import pino from 'pino';
import { openPgStore } from '../../journal/pg/open.ts';
import { NodeDirectory, URL_CACHE_MS } from '../../src/nodes/directory.ts';
import { freshDatabase, sql } from '../helpers/pg.ts';
import { startTestServer } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

// The node directory (src/nodes/directory.ts, docs/scale-out.md): each node's row in journal_nodes, its heartbeat,
// the other nodes' URLs. On a real PostgreSQL.

const log = pino({ level: 'silent' });

/** A migrated database and a pool on it (closed when the test ends). */
async function database(t: { teardown(fn: () => unknown): void }): Promise<{ url: string; pool: pg.Pool }> {
  const url = await freshDatabase();
  const store = await openPgStore(url, { onError: () => undefined });
  t.teardown(() => store.close());
  return { url, pool: store.pool };
}

type NodeRow = { node_id: string; url: string; started_at: Date; heartbeat_at: Date };
const rows = async (url: string): Promise<NodeRow[]> => (await sql(url, 'SELECT * FROM journal_nodes ORDER BY node_id')).rows;

test('start writes the node\'s row (the database\'s time), the heartbeat renews it, stop removes it', async (t) => {
  const { url, pool } = await database(t);
  const dir = new NodeDirectory({ pool, nodeId: 'node_a', ttlMs: 300, log });
  t.is(dir.heartbeatMs, 100);
  await dir.start('http://127.0.0.1:7001');
  const [first] = await rows(url);
  t.like(first, { node_id: 'node_a', url: 'http://127.0.0.1:7001' });
  const dbNow = (await sql(url, 'SELECT now() AS now')).rows[0].now as Date;
  t.true(Math.abs(dbNow.getTime() - first.heartbeat_at.getTime()) < 10_000);
  await until(async () => (await rows(url))[0].heartbeat_at > first.heartbeat_at, 10_000);
  t.deepEqual((await rows(url))[0].started_at, first.started_at, 'a heartbeat keeps started_at');
  await dir.stop();
  t.deepEqual(await rows(url), []);
});

test('a row removed while the node runs is written again by the next heartbeat', async (t) => {
  const { url, pool } = await database(t);
  const dir = new NodeDirectory({ pool, nodeId: 'node_a', ttlMs: 300, log });
  t.teardown(() => dir.stop());
  await dir.start('http://127.0.0.1:7001');
  await sql(url, 'DELETE FROM journal_nodes');
  await until(async () => (await rows(url)).length === 1, 10_000);
  t.like((await rows(url))[0], { node_id: 'node_a', url: 'http://127.0.0.1:7001' });
});

test('a start the database refuses does not throw: it is logged, and the heartbeat lists the node once it can', async (t) => {
  const { url, pool } = await database(t);
  const warnings: string[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { warnings.push(JSON.parse(String(chunk)).msg); done(); } });
  const dir = new NodeDirectory({ pool, nodeId: 'node_a', ttlMs: 300, log: pino({ level: 'warn' }, sink) });
  t.teardown(() => dir.stop());
  await sql(url, 'ALTER TABLE journal_nodes RENAME TO journal_nodes_away');
  await dir.start('http://127.0.0.1:7001');
  t.deepEqual(warnings.slice(0, 1), ['could not list this node in journal_nodes']);
  await sql(url, 'ALTER TABLE journal_nodes_away RENAME TO journal_nodes');
  await until(async () => (await rows(url)).length === 1, 10_000);
  t.like((await rows(url))[0], { node_id: 'node_a', url: 'http://127.0.0.1:7001' });
});

/** Nodes A (at 127.0.0.1:7001, its URL cache on `clock`) and B (at 10.0.0.2:7002) listed, with a 60 s TTL. */
async function twoListed(t: ExecutionContext) {
  const { url, pool } = await database(t);
  const clock = { now: 0 };
  const a = new NodeDirectory({ pool, nodeId: 'node_a', ttlMs: 60_000, log, now: () => clock.now });
  const b = new NodeDirectory({ pool, nodeId: 'node_b', ttlMs: 60_000, log });
  t.teardown(async () => Promise.all([a.stop(), b.stop()]));
  await a.start('http://127.0.0.1:7001');
  await b.start('http://10.0.0.2:7002');
  return { url, a, b, clock };
}

test('urlOf: another node\'s URL, undefined for a node with no row; an answer is kept briefly', async (t) => {
  const { url, a, b, clock } = await twoListed(t);
  t.is(await a.urlOf('node_b'), 'http://10.0.0.2:7002');
  t.is(await a.urlOf('node_c'), undefined);
  await sql(url, "UPDATE journal_nodes SET url = 'http://10.0.0.3:7002' WHERE node_id = 'node_b'");
  t.is(await a.urlOf('node_b'), 'http://10.0.0.2:7002', 'cached');
  clock.now += URL_CACHE_MS;
  t.is(await a.urlOf('node_b'), 'http://10.0.0.3:7002', 'read again once the cache is old');
  await b.stop();
  clock.now += URL_CACHE_MS;
  t.is(await a.urlOf('node_b'), undefined, 'a stopped node is gone');
});

test('a restart under the same node id starts its row anew (started_at, url)', async (t) => {
  const { url, pool } = await database(t);
  const first = new NodeDirectory({ pool, nodeId: 'node_a', ttlMs: 60_000, log });
  await first.start('http://127.0.0.1:7001');
  const before = (await rows(url))[0];
  // The process died without stop(): its row is left behind.
  const again = new NodeDirectory({ pool, nodeId: 'node_a', ttlMs: 60_000, log });
  t.teardown(async () => Promise.all([first.stop(), again.stop()]));
  await new Promise((r) => setTimeout(r, 20));
  await again.start('http://127.0.0.1:7005');
  const after = await rows(url);
  t.is(after.length, 1);
  t.is(after[0].url, 'http://127.0.0.1:7005');
  t.true(after[0].started_at > before.started_at);
});

test('a daemon on PostgreSQL lists itself at http://127.0.0.1:<port> while it runs, at SVC_CODE_NODE_URL when set', async (t) => {
  t.timeout(120_000);
  const url = await freshDatabase();
  const a = await startTestServer({ options: { journalUrl: url }, env: { SVC_CODE_NODE_ID: 'node_a' } });
  t.teardown(() => a.stop());
  const b = await startTestServer({ options: { journalUrl: url }, env: { SVC_CODE_NODE_ID: 'node_b', SVC_CODE_NODE_URL: 'http://node-b.internal:7002' } });
  t.teardown(() => b.stop());
  t.deepEqual((await rows(url)).map((r) => [r.node_id, r.url]), [
    ['node_a', `http://127.0.0.1:${a.server.port}`],
    ['node_b', 'http://node-b.internal:7002'],
  ]);
  await b.stop();
  t.deepEqual((await rows(url)).map((r) => r.node_id), ['node_a'], 'a stopped daemon removes its row');
});

test('urlOf: a row whose heartbeat is older than the TTL is a dead node\'s: absent', async (t) => {
  const { url, a, clock } = await twoListed(t);
  // Within the TTL (by the database's clock) it is alive, however old.
  await sql(url, "UPDATE journal_nodes SET heartbeat_at = now() - interval '50 seconds' WHERE node_id = 'node_b'");
  t.is(await a.urlOf('node_b'), 'http://10.0.0.2:7002');
  // Past it the node died without removing its row (kill -9): no command goes to its URL.
  await sql(url, "UPDATE journal_nodes SET heartbeat_at = now() - interval '61 seconds' WHERE node_id = 'node_b'");
  clock.now += URL_CACHE_MS;
  t.is(await a.urlOf('node_b'), undefined);
});

test('othersAlive: another node\'s fresh row, read at each heartbeat; a stale row does not count', async (t) => {
  const { url, pool } = await database(t);
  const a = new NodeDirectory({ pool, nodeId: 'node_a', ttlMs: 3_000, log });
  const b = new NodeDirectory({ pool, nodeId: 'node_b', ttlMs: 3_000, log });
  t.teardown(async () => Promise.all([a.stop(), b.stop()]));
  t.true(a.othersAlive(), 'before its first answer a node sends (a frame missed costs more than one sent for nobody)');
  // A dead node's row, left behind: older than the TTL.
  await sql(url, "INSERT INTO journal_nodes (node_id, url, heartbeat_at) VALUES ('node_dead', 'http://127.0.0.1:7009', now() - interval '4 seconds')");
  await a.start('http://127.0.0.1:7001');
  t.false(a.othersAlive(), 'alone with a dead node\'s row');
  await b.start('http://127.0.0.1:7002');
  t.true(b.othersAlive(), 'a node that starts knows the others at once');
  await until(() => a.othersAlive(), 10_000, 'A sees B at its next heartbeat');
  await b.stop();
  await until(() => !a.othersAlive(), 10_000, 'A alone again once B stopped');
});

test('othersAlive: a message heard from another node counts it alive at once, for the TTL', async (t) => {
  const { pool } = await database(t);
  let now = 0;
  const a = new NodeDirectory({ pool, nodeId: 'node_a', ttlMs: 60_000, log, now: () => now });
  t.teardown(() => a.stop());
  await a.start('http://127.0.0.1:7001');
  t.false(a.othersAlive());
  a.heardFromOther();
  t.true(a.othersAlive());
  now += 59_999;
  t.true(a.othersAlive(), 'the heartbeat has not read the new node yet');
  now += 1;
  t.false(a.othersAlive(), 'nothing heard for the TTL, and the heartbeat found nobody');
});
