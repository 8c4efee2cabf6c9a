import pg from 'pg';

export interface ListenOptions {
  url: string;
  channel: string;
  /** The log lines' prefix ("journal follower"). */
  name: string;
  /** The connection's `application_name` (what an operator sees in pg_stat_activity). */
  applicationName: string;
  onNotification(msg: pg.Notification): void;
  /** The LISTEN is in place: `again` after a lost connection came back (what was sent meanwhile was missed). */
  onConnected(again: boolean): void;
  log: { info(o: object, msg: string): void; warn(o: object, msg: string): void };
}

/**
 * A connection of its own that LISTENs on one channel (a pooled one would drop the LISTEN when returned), made again
 * with a doubling pause (200 ms up to 5 s) whenever it is lost: the journal follower's commit notifications and the
 * volatile relay's frames (docs/journal.md "Following other nodes", docs/scale-out.md "Streaming across nodes").
 */
export class ChannelListener {
  private current: pg.Client | undefined;
  private retries = 0;
  private stopped = false;

  constructor(private readonly o: ListenOptions) {
    void this.connect();
  }

  /** The live connection (its queries go out in order), or undefined while it is being made again. */
  get client(): pg.Client | undefined {
    return this.current;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const client = this.current;
    this.current = undefined;
    if (client) await client.end().catch((err: unknown) => this.o.log.warn({ err }, `${this.o.name}: closing the LISTEN connection failed`));
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.o.url, keepAlive: true, application_name: this.o.applicationName });
    let lost = false;
    const onLost = (err?: Error) => {
      if (lost) return;
      lost = true;
      if (this.current === client) this.current = undefined;
      if (this.stopped) return;
      const delay = Math.min(200 * 2 ** this.retries++, 5_000);
      this.o.log.warn({ err, retryInMs: delay }, `${this.o.name}: the LISTEN connection was lost; reconnecting`);
      setTimeout(() => void this.connect(), delay).unref();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (msg) => this.o.onNotification(msg));
    try {
      await client.connect();
      await client.query(`LISTEN ${this.o.channel}`);
    } catch (err) {
      onLost(err as Error);
      client.end().catch((e: unknown) => this.o.log.warn({ err: e }, `${this.o.name}: closing a failed LISTEN connection failed`));
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.current = client;
    const again = this.retries > 0;
    this.retries = 0;
    this.o.onConnected(again);
  }
}
