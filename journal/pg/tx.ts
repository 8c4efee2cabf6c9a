import type pg from 'pg';

/**
 * Runs `fn` in one transaction on a pooled connection: COMMIT when it resolves, ROLLBACK when it throws (the
 * error is rethrown). A connection whose ROLLBACK fails is broken: it is destroyed, not returned to the pool.
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // A checked-out connection that breaks between statements emits 'error' (the pool listens only to idle ones):
  // it is kept here, the statement in flight fails with it, and the connection is destroyed on release.
  const onError = (err: Error) => (broken = err);
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const out = await fn(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    try {
      await client.query('ROLLBACK');
    } catch (rollback) {
      broken = rollback as Error;
    }
    throw err;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
