import { logFailure, type Logger } from '../../lib/logger.ts';
import type { EventJournal } from '../../events/journal.ts';
import { trackWork, type LiveStatus } from '../../sessions/interaction.ts';

const COMPACTION_WORK = 'compaction';

/**
 * A runtime's manual compaction: at most one at a time, abortable, and holding the session's
 * `busy` (as work besides the main turn) from its start until it ends or a turn takes over.
 */
export class CompactionSlot {
  private running?: { controller: AbortController; done: Promise<void> };
  /** The compaction's unit of work is still registered in the live state. */
  private holdsWork = false;

  constructor(private readonly deps: LiveStatus & { journal: EventJournal; log: Logger }, private readonly sessionId: string) {}

  get active(): boolean {
    return this.running !== undefined;
  }

  /** Resolves when the running compaction (if any) has ended. */
  async settled(): Promise<void> {
    while (this.running) await this.running.done;
  }

  /**
   * Starts `run` with its abort signal once the busy flip is journaled. When it ends,
   * `keepBusy()` says whether a queued turn takes the busy over (then it is released by `release(false)`).
   */
  start(run: (signal: AbortSignal) => Promise<void>, keepBusy: () => boolean): void {
    const controller = new AbortController();
    this.holdsWork = true;
    const work = trackWork(this.deps, this.sessionId, COMPACTION_WORK, true);
    const done = (async () => {
      try {
        await work;
        await run(controller.signal);
      } catch (err) {
        this.deps.log.error({ err: { message: (err as Error).message }, session_id: this.sessionId }, 'compaction crashed');
      }
      this.running = undefined;
      if (!keepBusy()) await this.release(true);
    })();
    this.running = { controller, done };
  }

  abort(): void {
    this.running?.controller.abort();
  }

  /** Aborts and waits for the end (daemon stop). */
  async close(): Promise<void> {
    this.abort();
    await this.running?.done;
  }

  /** Ends the compaction's hold on `busy`; journaled unless a turn just took over. */
  async release(journal: boolean): Promise<void> {
    if (!this.holdsWork) return;
    this.holdsWork = false;
    if (journal) await trackWork(this.deps, this.sessionId, COMPACTION_WORK, false).catch(logFailure(this.deps.log, 'journaling the end of a compaction\'s work', { session_id: this.sessionId }));
    else this.deps.live.setWork(this.sessionId, COMPACTION_WORK, false);
  }
}
