import { mkdir } from 'node:fs/promises';
import type { ContractChecker } from '../../../protocol/contract-check.ts';
import { ConfigService } from '../../config/service.ts';
import type { EventJournal } from '../../events/journal.ts';
import { systemClock, type Clock } from '../../lib/clock.ts';
import { ulidIds, type Ids } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import { promptTracer, type PromptTracer } from '../../engine/trace.ts';
import { openHomeJournal, type JournalPlace, type OpenedJournal } from '../journal-boot.ts';
import type { Settings } from '../settings.ts';
import { hasPassword } from '../../../journal/pg/open.ts';
import { LocalLeases, PgSessionLeases, type SessionLeases } from '../../nodes/leases.ts';

export interface StorageOptions {
  home: string;
  log: Logger;
  /** Stamps every time the process records (tests pass one they move); default the system clock. */
  clock?: Clock;
  /** Mints every id (tests may pass a deterministic one); default ULIDs. */
  ids?: Ids;
  /** Test runs: every appended event is checked against the registry (docs/events.md). */
  checker?: ContractChecker;
  /** What the environment said at start (src/app/settings.ts; print mode's has its timeout defaults added). */
  settings: Settings;
  /** `serve --journal-url`: wins over `settings.journalUrl`; either selects the PostgreSQL journal (docs/journal.md). */
  journalUrl?: string;
}

/** Phase 1: what is on disk. The home, the journal slot and its journal, the config that journals its changes. */
export interface Storage {
  home: string;
  clock: Clock;
  ids: Ids;
  log: Logger;
  /** Read once at start; each later phase hands its parts the values they use. */
  settings: Settings;
  /** This daemon's node id among the daemons sharing one PostgreSQL journal: `settings.nodeId` or a fresh `node_<ULID>`. */
  nodeId: string;
  /** The prompt-latency trace (settings.tracePrompt; a no-op when unset): made here once, passed to each part that marks. */
  tracer: PromptTracer;
  /** Which node runs each session's runtime: leases in the shared database, or all this daemon's on LevelDB. */
  leases: SessionLeases;
  /** The journal slot this process writes to (PostgreSQL: an id, no directory). */
  primary: JournalPlace;
  journal: EventJournal;
  config: ConfigService;
  /**
   * The slots claimed at open: the read models adopt the others into the primary (phases/read-models.ts); on
   * PostgreSQL its `follow` starts following the other nodes' commits (the daemon does, once its reactions are registered).
   */
  opened: OpenedJournal;
}

/** Claims the home's journal slots (or connects to the PostgreSQL journal), opens the primary's journal (heads loaded) and loads the config. */
export async function openStorage(o: StorageOptions): Promise<Storage> {
  const { home, log, settings } = o;
  const clock = o.clock ?? systemClock;
  const ids = o.ids ?? ulidIds();
  // This daemon's node id (docs/scale-out.md): `settings.nodeId` or a fresh `node_<ULID>`, logged at start.
  const nodeId = settings.nodeId ?? `node_${ids.ulid()}`;
  log.info({ nodeId }, `node ${nodeId}`);
  const tracer = promptTracer(settings.tracePrompt);
  await mkdir(home, { recursive: true });
  const url = o.journalUrl ?? settings.journalUrl;
  if (o.journalUrl && hasPassword(o.journalUrl)) {
    log.warn('the password in --journal-url is visible to every user of this machine in its process list: set SVC_CODE_JOURNAL_URL instead (docs/journal.md)');
  }
  const opened = await openHomeJournal(home, { ids, clock, checker: o.checker, fsync: settings.journalFsync, retryMs: settings.journalRetryMs, tracer, url, log });
  const { primary, journal } = opened;
  const config = await ConfigService.load(home, { journal, log }, settings.config);
  const leases = opened.pool ? new PgSessionLeases(opened.pool, nodeId, settings.leaseTtlMs) : new LocalLeases(nodeId);
  return { home, clock, ids, log, settings, tracer, nodeId, leases, primary, journal, config, opened };
}
