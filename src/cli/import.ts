import { readFile } from 'node:fs/promises';
import path from 'node:path';
import pino from 'pino';
import type { ContractChecker } from '../../protocol/contract-check.ts';
import { importArchive, type ImportResult } from '../archive/import.ts';
import { openHomeJournal, startProjections } from '../app/journal-boot.ts';
import { readSettings } from '../app/settings.ts';
import { systemClock } from '../lib/clock.ts';
import { ulidIds } from '../lib/ids.ts';
import { LiveSessions } from '../sessions/live.ts';
import { runningDaemon } from './offline.ts';

/**
 * `svc-code import <zip>`: through the running daemon of the home when there is one (POST /sessions:import),
 * else offline: the home's journal and projections opened in this process (no HTTP listener, no engine),
 * the archive appended, the journal closed.
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
  try {
    process.stdout.write(`${JSON.stringify(await importOffline(home, bytes))}\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`import refused: ${(err as Error).message} ${JSON.stringify((err as { details?: unknown }).details ?? null)}\n`);
    return 1;
  }
}

/**
 * The import with no daemon: the home's journal opened and its projections started by the bootstrap `serve` uses
 * (src/app/journal-boot.ts: the slots this process can lock, the first written to and the others adopted into it,
 * so an id taken in any of them is seen; the fsync option; the contract checker when given), then the same
 * `importArchive` the route runs.
 */
export async function importOffline(home: string, zip: Uint8Array, checker?: ContractChecker): Promise<ImportResult> {
  const ids = ulidIds();
  const log = pino({ level: 'warn' }, pino.destination(2));
  const settings = readSettings(process.env);
  const opened = await openHomeJournal(home, { ids, clock: systemClock, checker, fsync: settings.journalFsync, url: settings.journalUrl, log });
  const { journal } = opened;
  try {
    const projections = await startProjections(home, opened, { log });
    return await importArchive({ journal, sessions: projections.sessions, workspaces: projections.workspaces, live: new LiveSessions(), clock: systemClock, ids }, zip);
  } finally {
    await journal.drain();
    await journal.close();
  }
}
