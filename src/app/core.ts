import { rm } from 'node:fs/promises';
import { exportFile, slotsDir } from '../../journal/slots.ts';
import type { ContractChecker } from '../../protocol/contract-check.ts';
import type { ClientCache } from '../engine/model-resolve.ts';
import type { ToolReplay } from '../tools/executor.ts';
import type { Clock } from '../lib/clock.ts';
import type { Ids } from '../lib/ids.ts';
import type { Logger } from '../lib/logger.ts';
import type { Settings } from './settings.ts';
import { openStorage, type Storage } from './phases/storage.ts';
import { startReadModels, type ReadModels } from './phases/read-models.ts';
import { buildEngine, type EngineParts } from './phases/engine.ts';
import { LeaseKeeper } from '../nodes/keeper.ts';
import { settleLeftAtStart, type Settlers } from '../nodes/settlement.ts';

/**
 * The engine without its transports: what `svc-code serve` (startServer) and `svc-code -p` (print mode) both run.
 * Built here once from three phases (src/app/phases/: storage, read models, engine; docs/architecture.md "Wiring"),
 * so the daemon and a print run are the same engine on the same journal; startServer adds the daemon's own parts
 * and the transports; print mode adds only its own reactions (src/cli/print/).
 */
export interface CoreOptions {
  home: string;
  log: Logger;
  /** Stamps every time the engine records (tests pass one they move). */
  clock?: Clock;
  /** Mints every id (tests may pass a deterministic one). */
  ids?: Ids;
  /** Test runs: every appended and published event is checked against the registry (docs/events.md). */
  checker?: ContractChecker;
  /** Rebuild every projection from the journal at start. */
  rebuildProjections?: boolean;
  /** `serve --journal-url`: a `postgres://` URL, over `settings.journalUrl` (src/app/phases/storage.ts). */
  journalUrl?: string;
  /** `svc-code replay`: model clients that serve recorded answers, and tool calls answered from the record (docs/replay.md). */
  replay?: { clients: ClientCache; tools?: ToolReplay };
  /** What the environment said at start (src/app/settings.ts; print mode's has its timeout defaults added). */
  settings: Settings;
  /** Where MCP OAuth redirects land (the daemon's loopback callback once it listens; print mode has none). */
  mcpRedirectUrl(): string;
  /**
   * Whether background work that ended while the session's agent is idle may start a follow-up turn now
   * (src/tasks/wakeups.ts); when it may not, the notes keep waiting for the session's next turn. Default: always
   * (the daemon). Print mode: never with `print_background_mode` exit or drain, up to `print_max_turns` with steer.
   */
  admitFollowUp?(sessionId: string): boolean;
}

/** The parts of the engine, by name: the three phases' outputs, and the engine's stop. */
export interface Core extends Omit<Storage, 'opened'>, ReadModels, EngineParts {
  /** PostgreSQL: starts following the other nodes' commits (the daemon does, once its reactions are registered). */
  follow?: Storage['opened']['follow'];
  /** PostgreSQL: the journal's URL, for the daemon's volatile relay (src/nodes/volatile-relay.ts). Never logged. */
  sharedJournalUrl?: string;
  /** PostgreSQL: renews this node's session leases; the daemon has it take dead nodes' sessions over (src/nodes/keeper.ts). */
  keeper?: LeaseKeeper;
  /** PostgreSQL: the journal's pool, which the node directory (src/nodes/) uses too. */
  pool?: Storage['opened']['pool'];
  /**
   * What a previous run left open (approvals, questions, an active goal, the open turn) settled in the sessions whose
   * lease this node takes (docs/interruptions.md), then the keeper's rounds start. Called once, before anything is
   * served: by the daemon once its goal driver exists (src/app/phases/daemon.ts), by print mode (no goals) at once.
   */
  settleAtStart(goals?: Settlers['goals']): Promise<void>;
  /** Stops the engine's work: turns (left open for the next start), MCP servers, tasks (but those kept alive), notes. */
  stopWork(): Promise<void>;
  /** Closes the stores, the journal last; the slot's export is removed (the slot is adopted by the next daemon). */
  closeStores(): Promise<void>;
}

/**
 * Builds the engine on the home's journal: storage opened, the read models loaded, every part of the engine
 * constructed. Nothing reacts to committed events yet, and what a previous run left open is not settled yet: the
 * caller calls `settleAtStart`, then registers its subscribers.
 */
export async function startCore(opts: CoreOptions): Promise<Core> {
  const storage = await openStorage(opts);
  let reads: ReadModels;
  let engine: EngineParts;
  try {
    reads = await startReadModels(storage, { rebuild: opts.rebuildProjections });
    engine = await buildEngine({ ...storage, ...reads }, opts);
  } catch (err) {
    // A later phase failed: what storage opened is closed (the journal slots unlocked, the database pool ended), so
    // a process that goes on (an embedding, a test, a retry) is not left holding them.
    await closeStorage(storage);
    throw err;
  }
  const { opened, ...stores } = storage;
  const keeper = opened.pool ? new LeaseKeeper({ leases: storage.leases, runtimes: engine.engine, log: storage.log, ttlMs: storage.settings.leaseTtlMs }) : undefined;
  const parts = { ...stores, ...reads, ...engine, follow: opened.follow, keeper, sharedJournalUrl: opened.url, pool: opened.pool };
  return { ...parts, ...closers(parts), settleAtStart: (goals) => settleThenKeepLeases(parts, goals) };
}

/** Before anything is served; on a shared journal only in the sessions whose lease this node takes (another live node's running turn is not ended). */
async function settleThenKeepLeases(p: Settlers & Pick<Core, 'leases' | 'log' | 'keeper'>, goals: Settlers['goals']): Promise<void> {
  await settleLeftAtStart({ ...p, goals });
  p.keeper?.start();
}

/** Best effort, after a failed start: the config's watcher, the journal (its store), the slots opened besides it. */
async function closeStorage(storage: Storage): Promise<void> {
  const log = (err: unknown) => storage.log.warn({ err }, 'closing storage after a failed start failed');
  await storage.config.close().catch(log);
  await storage.journal.close().catch(log);
  await Promise.allSettled(storage.opened.adoptable.map((slot) => slot.db.close()));
}

/** The core's stop, in two halves: the engine's work (the caller's transports stop in between), then the stores. */
function closers(p: Omit<Core, 'stopWork' | 'closeStores' | 'settleAtStart'>): Pick<Core, 'stopWork' | 'closeStores'> {
  return {
    async stopWork() {
      await p.instances.stop();
      p.questions.close();
      await p.engine.closeAll();
      // Once no runtime writes any more: the leases end, and the other nodes take the sessions over at once.
      await p.keeper?.stop();
      await p.mcp.close();
      await p.tasks.closeAll();
      await p.notes.close();
      await p.auth.close();
    },
    async closeStores() {
      await p.config.close();
      await p.uploads.close();
      await p.journal.close();
      await rm(exportFile(slotsDir(p.home), p.primary.id), { force: true });
    },
  };
}
