import test from 'ava';
import pg from 'pg';
import { migrate } from '../../journal/pg/schema.ts';
import { PgSessionLeases } from '../../src/nodes/leases.ts';
import { freshDatabase, sql } from '../helpers/pg.ts';

// Session leases on a real PostgreSQL (docs/scale-out.md "Leases"): one holder at a time, renewal, takeover of
// expired leases only, and disjoint takeovers when two nodes look at once.

async function pool(t: { teardown(fn: () => unknown): void }): Promise<{ url: string; pool: pg.Pool }> {
  const url = await freshDatabase();
  const p = new pg.Pool({ connectionString: url, max: 4 });
  p.on('error', () => undefined); // an idle connection closed by the server's stop at the end
  t.teardown(() => p.end());
  await migrate(p);
  return { url, pool: p };
}

test('one holder at a time: a live lease is refused to another node, its own node takes it again', async (t) => {
  const { pool: p } = await pool(t);
  const a = new PgSessionLeases(p, 'node_a', 60_000);
  const b = new PgSessionLeases(p, 'node_b', 60_000);
  t.deepEqual(await a.acquire('s1'), { held: true });
  t.deepEqual(await b.acquire('s1'), { held: false, owner: 'node_a' });
  t.is(await b.ownerElsewhere('s1'), 'node_a');
  t.is(await a.ownerElsewhere('s1'), undefined);
  t.deepEqual(await a.acquire('s1'), { held: true });
  await a.release('s1');
  // Released: the next node takes it, and learns who wrote it last.
  t.deepEqual(await b.acquire('s1'), { held: true });
  t.deepEqual([...b.held()], ['s1']);
  t.deepEqual([...a.held()], []);
});

test('an expired lease is taken over (with its previous node and a new generation); renew reports a lease lost', async (t) => {
  const { url, pool: p } = await pool(t);
  const a = new PgSessionLeases(p, 'node_a', 60_000);
  const b = new PgSessionLeases(p, 'node_b', 60_000);
  await a.acquire('s1');
  await a.acquire('s2');
  t.deepEqual(await b.takeExpired(), [], 'nothing expired yet');
  t.deepEqual(await a.renew(), []);
  await sql(url, "UPDATE session_leases SET expires_at = now() - interval '1 second' WHERE session_id = 's1'");
  t.deepEqual(await b.takeExpired(), [{ sessionId: 's1', previous: 'node_a' }]);
  t.deepEqual((await sql(url, "SELECT node_id, generation::int AS g FROM session_leases WHERE session_id = 's1'")).rows, [{ node_id: 'node_b', g: 2 }]);
  t.deepEqual(await a.renew(), ['s1'], 'node_a learns it lost s1');
  t.deepEqual([...a.held()], ['s2']);
  // A lease ended early (a takeover that could not settle) is taken again on the next round, by any node.
  await b.expire(['s1']);
  t.deepEqual(await b.takeExpired(), [{ sessionId: 's1', previous: 'node_b' }]);
  // A graceful stop ends every lease of the node at once.
  await a.expireHeld();
  t.deepEqual(await b.takeExpired(), [{ sessionId: 's2', previous: 'node_a' }]);
});

test('an expired lease is taken by an acquire with its previous node named; two nodes taking over at once split the sessions', async (t) => {
  const { url, pool: p } = await pool(t);
  const a = new PgSessionLeases(p, 'node_a', 60_000);
  for (let i = 0; i < 40; i++) await a.acquire(`s${String(i).padStart(2, '0')}`);
  await sql(url, "UPDATE session_leases SET expires_at = now() - interval '1 second' WHERE session_id = 's00'");
  const c = new PgSessionLeases(p, 'node_c', 60_000);
  t.deepEqual(await c.acquire('s00'), { held: true, previous: 'node_a' });
  await a.expireHeld();
  const b = new PgSessionLeases(p, 'node_b', 60_000);
  const [fromB, fromC] = await Promise.all([b.takeExpired(), c.takeExpired()]);
  const all = [...fromB, ...fromC].map((x) => x.sessionId).sort();
  t.is(all.length, 39, 'every expired lease taken once');
  t.is(new Set(all).size, 39);
  t.false(all.includes('s00'), 'the one node_c holds is not expired');
});
