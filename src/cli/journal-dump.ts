import { parseArgs } from 'node:util';
import { strFromU8, unzipSync } from 'fflate';
import { Journal } from '../../journal/journal.ts';
import { journalFile } from '../archive/format.ts';
import { openFreeSlots, openUrlJournal, runningDaemon } from './offline.ts';

export const JOURNAL_USAGE = 'usage: svc-code journal dump <session_id> [--after-seq N]';

const line = (e: { seq: number; epoch: string; type: string; ts: string; payload: unknown }) =>
  `${JSON.stringify({ seq: e.seq, epoch: e.epoch, type: e.type, ts: e.ts, payload: e.payload })}\n`;

/**
 * `svc-code journal dump`: a session's events as JSONL on stdout, oldest first. Reads the journal slots
 * directly; a slot a running daemon holds is read through that daemon's export instead.
 */
export async function journalCommand(home: string, argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: { 'after-seq': { type: 'string' } }, allowPositionals: true, strict: true });
  const [verb, sessionId] = positionals;
  if (verb !== 'dump' || !sessionId || positionals.length > 2) {
    process.stderr.write(`${JOURNAL_USAGE}\n`);
    return 2;
  }
  const after = values['after-seq'] === undefined ? 0 : Number(values['after-seq']);
  if (!Number.isInteger(after) || after < 0) {
    process.stderr.write(`invalid --after-seq: ${values['after-seq']}\n`);
    return 2;
  }
  const shared = await openUrlJournal(home);
  if (shared) return dumpFrom(shared.journal, sessionId, after, home);
  const { slots, locked } = await openFreeSlots(home);
  try {
    for (const slot of slots) {
      const journal = new Journal({ db: slot.db });
      await journal.load();
      if (!journal.hasStream(sessionId)) continue;
      for (const e of await journal.readRange(sessionId, after + 1)) process.stdout.write(line(e));
      return 0;
    }
  } finally {
    for (const slot of slots) await slot.db.close();
  }
  const daemon = locked ? await runningDaemon(home) : undefined;
  if (daemon) {
    const res = await fetch(`${daemon.instance.base_url}/api/v1/sessions/${encodeURIComponent(sessionId)}/export`, {
      method: 'POST', headers: { Authorization: `Bearer ${daemon.token}`, 'Content-Type': 'application/json' }, body: '{}',
    });
    if (res.headers.get('content-type') === 'application/zip') {
      const text = strFromU8(unzipSync(new Uint8Array(await res.arrayBuffer()))[journalFile(sessionId)] ?? new Uint8Array());
      for (const l of text.split('\n')) if (l && (JSON.parse(l) as { seq: number }).seq > after) process.stdout.write(`${l}\n`);
      return 0;
    }
  }
  process.stderr.write(`no such session in ${home}: ${sessionId}\n`);
  return 1;
}

/** The PostgreSQL journal: read directly, daemons running or not. */
async function dumpFrom(journal: Journal, sessionId: string, after: number, home: string): Promise<number> {
  try {
    if (!journal.hasStream(sessionId)) {
      process.stderr.write(`no such session in the journal database of ${home}: ${sessionId}\n`);
      return 1;
    }
    for (const e of await journal.readRange(sessionId, after + 1)) process.stdout.write(line(e));
    return 0;
  } finally {
    await journal.close();
  }
}
