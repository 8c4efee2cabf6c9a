import pg from 'pg';
import { toEvent, type Journal } from '../journal.ts';
import type { JournalEvent, StreamHead } from '../types.ts';
import { COMMIT_CHANNEL } from './channel.ts';
import type { FollowedRow, PgStore } from './pg-store.ts';

/** Rows read per catch-up page. */
const PAGE = 500;

export interface FollowerOptions {
  url: string;
  store: Pick<PgStore, 'readSince' | 'readEvents'>;
  journal: Pick<Journal, 'headSeq' | 'applyRemote'>;
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
  private client: pg.Client | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private retries = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly o: FollowerOptions) {
    this.lastSeen = o.from;
    this.timer = setInterval(() => this.kick(), o.intervalMs);
    this.timer.unref();
    void this.connect();
  }

  /** Reads what is new now (single flight: a kick during a catch-up runs one more after it). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.catchUp()
      .catch((err: unknown) => this.o.log.error({ err }, 'journal follower: catch-up failed; retried on the next notification or tick'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    const client = this.client;
    this.client = undefined;
    if (client) await client.end().catch((err: unknown) => this.o.log.warn({ err }, 'journal follower: closing the LISTEN connection failed'));
    await this.running;
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.o.url, keepAlive: true, application_name: 'svc-code follower' });
    let lost = false;
    const onLost = (err?: Error) => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = undefined;
      if (this.stopped) return;
      const delay = Math.min(200 * 2 ** this.retries++, 5_000);
      this.o.log.warn({ err, retryInMs: delay }, 'journal follower: the LISTEN connection was lost; reconnecting');
      setTimeout(() => void this.connect(), delay).unref();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', () => this.kick());
    try {
      await client.connect();
      await client.query(`LISTEN ${COMMIT_CHANNEL}`);
    } catch (err) {
      onLost(err as Error);
      client.end().catch((e: unknown) => this.o.log.warn({ err: e }, 'journal follower: closing a failed LISTEN connection failed'));
      return;
    }
    if (this.stopped) {
      await client.end();
      return;
    }
    this.client = client;
    if (this.retries > 0) this.o.log.info({}, 'journal follower: LISTEN connection back; catching up');
    this.retries = 0;
    this.kick();
  }

  private async catchUp(): Promise<void> {
    for (;;) {
      const rows = await this.o.store.readSince(this.lastSeen, PAGE);
      if (!rows.length) return;
      await this.apply(rows);
      this.lastSeen = rows[rows.length - 1].position;
      if (rows.length < PAGE) return;
    }
  }

  /** The rows past this node's heads, gaps filled, applied as one remote batch. */
  private async apply(rows: FollowedRow[]): Promise<void> {
    const events: JournalEvent[] = [];
    const created = new Map<string, StreamHead>();
    const at = new Map<string, number>();
    for (const r of rows) {
      const head = at.get(r.stream) ?? this.o.journal.headSeq(r.stream);
      if (r.seq <= head) continue;
      if (!created.has(r.stream)) created.set(r.stream, { epoch: r.epoch, seq: 0, created_at: r.created_at });
      if (r.seq > head + 1) {
        for (const m of await this.o.store.readEvents(r.stream, head + 1, r.seq - 1, -1)) events.push(toEvent(r.stream, m.seq, r.epoch, m.event));
      }
      events.push(toEvent(r.stream, r.seq, r.epoch, r.data));
      at.set(r.stream, r.seq);
    }
    if (events.length) this.o.journal.applyRemote(events, created);
  }
}
