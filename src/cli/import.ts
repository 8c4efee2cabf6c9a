import { readFile } from 'node:fs/promises';
import path from 'node:path';
import pino from 'pino';
import { importArchive } from '../archive/import.ts';
import { defaultServeOptions } from '../app/options.ts';
import { startServer } from '../app/server.ts';
import { runningDaemon } from './offline.ts';

/**
 * `svc-code import <zip>`: through the running daemon of the home when there is one (POST /sessions:import),
 * else by a daemon started for the import alone on a loopback port, stopped once it is on disk.
 */
export async function importCommand(home: string, argv: string[]): Promise<number> {
  if (argv.length !== 1) {
    process.stderr.write('usage: svc-code import <export.zip>\n');
    return 2;
  }
  const bytes = new Uint8Array(await readFile(argv[0]));
  const daemon = await runningDaemon(home);
  if (daemon) {
    const form = new FormData();
    form.append('file', new Blob([Buffer.from(bytes)], { type: 'application/zip' }), path.basename(argv[0]));
    const res = await fetch(`${daemon.instance.base_url}/api/v1/sessions:import`, { method: 'POST', headers: { Authorization: `Bearer ${daemon.token}` }, body: form });
    const body = (await res.json()) as { code: number; msg: string; data: unknown };
    if (body.code !== 0) {
      process.stderr.write(`import refused: ${body.msg} ${JSON.stringify(body)}\n`);
      return 1;
    }
    process.stdout.write(`${JSON.stringify(body.data)}\n`);
    return 0;
  }
  const server = await startServer({ home, options: { ...defaultServeOptions(), host: '127.0.0.1', port: 0 }, log: pino({ level: 'warn' }, pino.destination(2)) });
  try {
    const result = await importArchive(server.services, bytes);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`import refused: ${(err as Error).message} ${JSON.stringify((err as { details?: unknown }).details ?? null)}\n`);
    return 1;
  } finally {
    await server.close();
  }
}
