import { createHash } from 'node:crypto';
import type pg from 'pg';
import { JournalOpenError, describeUrl, journalIdentity, openPgStore } from '../../journal/pg/open.ts';
import { Follower } from '../../journal/pg/follower.ts';
import { claimSlots, type Slot } from '../../journal/slots.ts';
import type { ContractChecker } from '../../protocol/contract-check.ts';
import { ProjectionRunner } from '../../projections/runner.ts';
import type { PromptTracer } from '../engine/trace.ts';
import { EventJournal } from '../events/journal.ts';
import type { Clock } from '../lib/clock.ts';
import type { Ids } from '../lib/ids.ts';
import { importSlot } from './instances.ts';
import type { Logger } from '../lib/logger.ts';
import { createProjections, type Projections } from './projections.ts';

// The journal bootstrap shared by `serve` (startServer) and the offline commands that write to a home with no
// daemon (`svc-code import`): one place for how the slots are claimed, the journal opened and its projections
// started, so an offline write lands exactly as the daemon's would.

/** Where this process writes: a LevelDB slot of the home, or the PostgreSQL journal (id `pg-<hash of its address>`). */
export type JournalPlace = Pick<Slot, 'id' | 'dir'>;

export interface OpenedJournal {
  /** The slot written to (for PostgreSQL: its id, and no directory). */
  primary: JournalPlace;
  /** The other slots this process could lock: adopted into the primary by `startProjections`. */
  adoptable: Slot[];
  journal: EventJournal;
  /**
   * PostgreSQL only: starts following the other nodes' commits (journal/pg/follower.ts), once the projections and
   * the reactions are in place; its stop comes before the journal closes.
   */
  follow?: (o: { log: Logger; intervalMs: number }) => Follower;
  /** PostgreSQL only: the journal's connection pool, shared with the session leases (src/nodes/leases.ts). */
  pool?: pg.Pool;
  /** PostgreSQL only: the journal's URL (the volatile relay's own connection; never logged: it may hold a password). */
  url?: string;
}

/**
 * Claims the home's free journal slots and opens the primary's journal (heads loaded), with the fsync option and,
 * when given, the contract checker every append is checked against (tests) and the prompt tracer that marks each
 * append, write and durable write of a session's events (the daemon's, when its settings trace; offline commands
 * pass none).
 */
export async function openHomeJournal(
  home: string, o: { ids: Ids; clock: Clock; fsync: boolean; retryMs?: number; checker?: ContractChecker; tracer?: PromptTracer; url?: string; log?: Logger },
): Promise<OpenedJournal> {
  if (o.url) return openPgJournal(o.url, o);
  const { primary, adoptable } = await claimSlots(home, o.ids.ulid);
  const journal = new EventJournal({
    db: primary.db, clock: o.clock, newEpoch: o.ids.ulid, sync: o.fsync, checker: o.checker, trace: traceOf(o.tracer),
  });
  try {
    await journal.load();
  } catch (err) {
    // Nothing opened stays locked: the slots are released for the next attempt.
    await Promise.allSettled([primary, ...adoptable].map((slot) => slot.db.close()));
    throw err;
  }
  return { primary, adoptable, journal };
}

/** The journal's append marks for the prompt tracer, when it records. */
const traceOf = (tracer: PromptTracer | undefined) => (tracer?.on ? (stream: string, label: string) => tracer.mark(stream, label) : undefined);

/**
 * The PostgreSQL journal (docs/journal.md "PostgreSQL"): connected, migrated and its heads loaded, or a
 * JournalOpenError with one line naming the problem (bad URL, refused login, no answer, newer schema).
 */
async function openPgJournal(url: string, o: { ids: Ids; clock: Clock; fsync: boolean; retryMs?: number; checker?: ContractChecker; tracer?: PromptTracer; log?: Logger }): Promise<OpenedJournal> {
  const onError = (err: Error, what: string) => o.log?.warn({ err }, what);
  const store = await openPgStore(url, { onError, ...(o.retryMs !== undefined ? { retryMs: o.retryMs } : {}) });
  const journal = new EventJournal({
    store, clock: o.clock, newEpoch: o.ids.ulid, sync: o.fsync, checker: o.checker, trace: traceOf(o.tracer),
  });
  let from: string;
  try {
    // The position first, then the heads: what commits in between is read again by the follower, and skipped.
    from = await store.lastPosition();
    await journal.load();
  } catch (err) {
    await store.close();
    throw new JournalOpenError(`cannot read the journal database (${describeUrl(url)}): ${(err as Error).message}`, { cause: err });
  }
  const id = `pg-${createHash('sha256').update(journalIdentity(url)).digest('hex').slice(0, 12)}`;
  const follow = (f: { log: Logger; intervalMs: number }) => new Follower({ url, store, journal, from, ...f });
  return { primary: { id, dir: '' }, adoptable: [], journal, follow, pool: store.pool, url };
}

/** The projections loaded (or rebuilt, `--rebuild-projections`), then the other slots adopted into the primary. */
export async function startProjections(home: string, opened: OpenedJournal, o: { log: Logger; rebuild?: boolean }): Promise<Projections> {
  const projections = createProjections(opened.journal);
  await new ProjectionRunner(opened.journal, projections.all).start({ forceRebuild: o.rebuild });
  for (const slot of opened.adoptable) await importSlot(opened.journal, slot, o.log, home);
  return projections;
}
