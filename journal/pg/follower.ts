import { toEvent, type Journal } from '../journal.ts';
import type { JournalEvent, StreamHead } from '../types.ts';
import { COMMIT_CHANNEL } from './channel.ts';
import { ChannelListener } from './listen.ts';
import type { FollowedRow, PgStore } from './pg-store.ts';
import type { WriteUnit } from '../store.ts';

/** Rows read per catch-up page. */
const PAGE = 500;

/** Times a followed event whose projection apply throws is tried (with a doubling pause) before the follower stops. */
const APPLY_TRIES = 5;

/** A projection threw applying a followed event (journal `applyRemote`): the follower stays before it. */
class ApplyError extends Error {
  override readonly name = 'ApplyError';
  constructor(readonly position: string, cause: unknown) {
    super(`applying the followed event at position ${position} failed: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

export interface FollowerOptions {
  url: string;
  store: Pick<PgStore, 'readSince' | 'readEvents' | 'whileLocked' | 'lastPosition'>;
  journal: Pick<Journal, 'headSeq' | 'durableSeq' | 'applyRemote' | 'on' | 'off' | 'removeRemote' | 'setResync' | 'setCatchUp' | 'reloadProjections'>;
  /** The position this node's heads were loaded at (read before loading them). */
  from: string;
  /** The catch-up timer: a lost notification costs at most this long (ms). */
  intervalMs: number;
  log: { info(o: object, msg: string): void; warn(o: object, msg: string): void; error(o: object, msg: string): void };
}

/**
 * Follows the other nodes' commits to the shared PostgreSQL journal (docs/journal.md "Following other nodes"):
 * on each NOTIFY of the dedicated LISTEN connection, on each (re)connect and on a timer, it reads the events past
 * the last position seen, in position order, and hands those past this node's heads to `journal.applyRemote`.
 *
 * Position order is commit order: every append transaction takes one advisory lock (APPEND_LOCK) before it
 * writes, so positions are assigned and committed one transaction at a time, and a reader never sees a higher
 * position commit before a lower one. Hence a stream's events arrive here in seq order; an event at or below the
 * head is this node's own (already emitted when it committed) and is skipped; a gap (not expected) is filled by
 * reading the stream's missing range first, so a stream is emitted with no gap and no duplicate.
 */
export class Follower {
  private lastSeen: string;
  private readonly listener: ChannelListener;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  /** Failed applies of the event the follower is stopped before; past APPLY_TRIES it stays there (logged). */
  private applyFailures = 0;
  private stuck = false;
  /** The last catch-up stopped at a row of a seq this node's unwritten append holds. */
  private blocked = false;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly o: FollowerOptions) {
    this.lastSeen = o.from;
    this.timer = setInterval(() => this.kick(), o.intervalMs);
    this.timer.unref();
    o.journal.setResync((then) => this.resync(then));
    o.journal.setCatchUp(() => this.reachNow());
    // A catch-up that stopped before this node's own commit (not acknowledged yet when read) goes on once it is.
    o.journal.on('committed', this.onCommitted);
    this.listener = new ChannelListener({
      url: o.url, channel: COMMIT_CHANNEL, name: 'journal follower', applicationName: 'svc-code follower', log: o.log,
      onNotification: () => this.kick(),
      onConnected: (again) => {
        if (again) o.log.info({}, 'journal follower: LISTEN connection back; catching up');
        this.kick();
      },
    });
  }

  private readonly onCommitted = (_events: unknown, origin?: string): void => {
    if (origin !== 'remote' && this.blocked) this.kick();
  };

  /** Reads what is new now (single flight: a kick during a catch-up runs one more after it). */
  kick(): void {
    if (this.stopped || this.stuck) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.run(this.catchUp(true).catch((err: unknown) => this.failed(err)));
  }

  /**
   * After a conflict on a shared stream (journal.ts `recover`, its heads put back): while no other node can commit,
   * the projections are reloaded from the database's records and every event committed since the last position
   * seen is applied to the heads and emitted, not derived again (the reloaded records hold them); then `then` runs,
   * still under the lock, and what it writes commits with the lock's transaction. After the catch-up in flight,
   * single flight with the others.
   */
  async resync(then: (write: (units: WriteUnit[]) => Promise<void>) => Promise<void>): Promise<void> {
    while (this.running) await this.running;
    const done = this.o.store.whileLocked(async (write) => {
      await this.o.journal.reloadProjections();
      await this.catchUp(false);
      await then(write);
    });
    this.run(done.then(() => {
      this.stuck = false;
    }, (err: unknown) => this.o.log.warn({ err }, 'journal follower: resync after a conflict failed (the journal fails the appends)')));
    await done;
  }

  /**
   * Resolves once every event committed before the call has been followed here (a node taking a session over reads
   * its previous owner's last writes before writing to it); rejects after `timeoutMs` (the follower stuck or the
   * database away), so the caller retries later instead of writing on a stale head.
   */
  async reachNow(timeoutMs = 10_000): Promise<void> {
    const target = BigInt(await this.o.store.lastPosition());
    const deadline = Date.now() + timeoutMs;
    while (BigInt(this.lastSeen) < target) {
      if (this.stopped || Date.now() > deadline) throw new Error(`the journal follower did not reach position ${target} within ${timeoutMs} ms`);
      this.kick();
      await this.running;
      if (BigInt(this.lastSeen) < target) await new Promise((r) => setTimeout(r, 20));
    }
  }

  private run(work: Promise<void>): void {
    this.running = work.finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  /** A read failed (retried on the next notification or tick), or an apply did (retried APPLY_TRIES times, then stopped). */
  private failed(err: unknown): void {
    if (!(err instanceof ApplyError)) {
      this.o.log.error({ err }, 'journal follower: catch-up failed; retried on the next notification or tick');
      return;
    }
    if (++this.applyFailures >= APPLY_TRIES) {
      this.stuck = true;
      this.o.log.error({ err, position: err.position, tries: this.applyFailures },
        'journal follower: a followed event keeps failing to apply; stopped before it (nothing after it is applied) until a restart');
      return;
    }
    const delay = 100 * 2 ** (this.applyFailures - 1);
    this.o.log.warn({ err, position: err.position, retryInMs: delay }, 'journal follower: applying a followed event failed; retrying');
    setTimeout(() => this.kick(), delay).unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.o.journal.setResync(undefined);
    this.o.journal.setCatchUp(undefined);
    this.o.journal.off('committed', this.onCommitted);
    clearInterval(this.timer);
    await this.listener.stop();
    await this.running;
  }

  /** `derive`: false after a reload of the projections from records that hold these events already (`resync`). */
  private async catchUp(derive: boolean): Promise<void> {
    this.blocked = false;
    for (;;) {
      const rows = await this.o.store.readSince(this.lastSeen, PAGE);
      if (!rows.length) return;
      let from = 0;
      for (let i = 0; i <= rows.length; i++) {
        if (i < rows.length && !rows[i].removed) continue;
        const done = await this.apply(rows.slice(from, i), derive);
        if (done < i - from) {
          // An event of another node at a seq this node's own unwritten append holds: stop before it. Either that
          // append fails (the journal's recover catches up from here) or the row was this node's own, committed
          // but not yet acknowledged: read again when the next commit here or the next tick kicks.
          if (from + done > 0) this.lastSeen = rows[from + done - 1].position;
          this.blocked = true;
          return;
        }
        if (i < rows.length) this.o.journal.removeRemote(rows[i].stream);
        from = i + 1;
      }
      this.lastSeen = rows[rows.length - 1].position;
      this.applyFailures = 0;
      if (rows.length < PAGE) return;
    }
  }

  /**
   * The event rows past this node's committed heads, gaps filled, applied as one remote batch; returns how many rows
   * were taken (fewer: it stopped at a row it cannot place yet). An apply that throws leaves the heads before the
   * event that failed (journal `applyRemote`): the next catch-up reads it again, nothing skipped.
   */
  private async apply(rows: FollowedRow[], derive: boolean): Promise<number> {
    const events: JournalEvent[] = [];
    const created = new Map<string, StreamHead>();
    const at = new Map<string, number>();
    let taken = 0;
    for (const r of rows) {
      if (r.seq <= (at.get(r.stream) ?? this.o.journal.durableSeq(r.stream))) {
        taken++;
        continue;
      }
      const head = at.get(r.stream) ?? this.o.journal.headSeq(r.stream);
      if (r.seq <= head) break;
      taken++;
      if (!created.has(r.stream)) created.set(r.stream, { epoch: r.epoch, seq: 0, created_at: r.created_at });
      if (r.seq > head + 1) {
        for (const m of await this.o.store.readEvents(r.stream, head + 1, r.seq - 1, -1)) events.push(toEvent(r.stream, m.seq, r.epoch, m.event));
      }
      events.push(toEvent(r.stream, r.seq, r.epoch, r.data));
      at.set(r.stream, r.seq);
    }
    if (events.length) {
      try {
        this.o.journal.applyRemote(events, created, derive);
      } catch (err) {
        throw new ApplyError(rows[Math.max(0, taken - 1)].position, err);
      }
    }
    return taken;
  }
}
