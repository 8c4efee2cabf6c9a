import type pg from 'pg';
import type { Logger } from '../lib/logger.ts';
import type { Peers } from './types.ts';

/** How long `urlOf` keeps an answer: a node's URL changes only when it restarts under the same id. */
export const URL_CACHE_MS = 2_000;

/** The TTL (milliseconds, the parameter `param`) as an interval: a row older than it is a dead node's. */
const TTL_INTERVAL = (param: string) => `(${param}::float8 * interval '1 millisecond')`;

/**
 * A write of this node's row ($1 node id, $2 url) that also counts the other nodes whose heartbeat is within the TTL
 * ($3): one round trip per beat. The count is the database's view before the write (its own row is left out anyway).
 */
function withOthersCount(upsert: string): string {
  return `WITH beat AS (${upsert} RETURNING node_id)
    SELECT count(*)::int AS others FROM journal_nodes WHERE node_id <> $1 AND heartbeat_at > now() - ${TTL_INTERVAL('$3')}`;
}

export interface NodeDirectoryOptions {
  /** The journal's pool (PostgreSQL): the directory is table `journal_nodes` of the same database. */
  pool: pg.Pool;
  nodeId: string;
  /** The row lives this long without a heartbeat (`SVC_CODE_LEASE_TTL_MS`); the node beats every third of it. */
  ttlMs: number;
  log: Logger;
  /** Milliseconds since an arbitrary origin (the URL cache's age, the time since another node was heard); default `performance.now()`. */
  now?: () => number;
}

/**
 * The nodes sharing one PostgreSQL journal (docs/scale-out.md): each node's row in `journal_nodes` says where its
 * HTTP API is (`url`) and that it is alive (`heartbeat_at`, renewed every `ttlMs / 3`). Times are the database's
 * `now()`, so the nodes' clocks never disagree. A row whose heartbeat is older than `ttlMs` is a dead node's: it is
 * not counted alive, and no command is forwarded to it. A command for a session another node owns is forwarded to
 * that node's URL (src/http/forward.ts); the volatile relay sends only while another node is alive (`othersAlive`).
 */
export class NodeDirectory implements Peers {
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private url = '';
  private readonly cache = new Map<string, { url: string | undefined; at: number }>();
  private readonly now: () => number;
  /** The last heartbeat's answer: another row is fresh; undefined before the first answer. */
  private othersByBeat: boolean | undefined;
  /** When a message from another node last arrived (`now()`). */
  private heardAt = -Infinity;

  constructor(private readonly o: NodeDirectoryOptions) {
    this.now = o.now ?? (() => performance.now());
  }

  get nodeId(): string {
    return this.o.nodeId;
  }

  get heartbeatMs(): number {
    return Math.max(1, Math.floor(this.o.ttlMs / 3));
  }

  /**
   * Writes this node's row (a restart under the same id starts it anew) and heartbeats until `stop`. A failed write
   * is logged, not thrown: the daemon serves anyway, and the next heartbeat writes the row.
   */
  async start(url: string): Promise<void> {
    this.url = url;
    this.timer = setInterval(() => void this.beat(), this.heartbeatMs);
    this.timer.unref();
    await this.write({
      name: 'node-start',
      text: withOthersCount(`INSERT INTO journal_nodes (node_id, url, started_at, heartbeat_at) VALUES ($1, $2, now(), now())
             ON CONFLICT (node_id) DO UPDATE SET url = excluded.url, started_at = now(), heartbeat_at = now()`),
    }, 'could not list this node in journal_nodes');
  }

  /**
   * Whether another node's heartbeat is fresh (the last beat's answer), or another node was heard from within the
   * TTL (`heardFromOther`). True before the first answer: sending for nobody costs less than a frame missed.
   */
  othersAlive(): boolean {
    return this.othersByBeat !== false || this.now() - this.heardAt < this.o.ttlMs;
  }

  /** A message from another node arrived (src/nodes/volatile-relay.ts): it is alive, whatever the last beat read. */
  heardFromOther(): void {
    this.heardAt = this.now();
  }

  /** Renews the row, or writes it again if it is gone (removed by hand, or lost): a live node is always listed. */
  private beat(): Promise<void> {
    this.beating ??= this.write({
      name: 'node-beat',
      text: withOthersCount(`INSERT INTO journal_nodes (node_id, url) VALUES ($1, $2)
             ON CONFLICT (node_id) DO UPDATE SET url = excluded.url, heartbeat_at = now()`),
    }, 'node heartbeat failed').finally(() => (this.beating = undefined));
    return this.beating;
  }

  /**
   * Runs a write of this node's row, which also reads how many other rows are fresh; a failure is logged (the next
   * heartbeat tries again) and keeps the last answer.
   */
  private async write(query: { name: string; text: string }, failure: string): Promise<void> {
    try {
      const { rows } = await this.o.pool.query<{ others: number }>({ ...query, values: [this.o.nodeId, this.url, this.o.ttlMs] });
      this.othersByBeat = rows[0].others > 0;
    } catch (err) {
      this.o.log.warn({ err, nodeId: this.o.nodeId }, failure);
    }
  }

  /**
   * Where node `nodeId` serves its HTTP API, or undefined when it has no row (stopped, or never started) or its
   * heartbeat is older than the TTL (dead: forwarding to it answers owner_unreachable at once).
   */
  async urlOf(nodeId: string): Promise<string | undefined> {
    const hit = this.cache.get(nodeId);
    if (hit && this.now() - hit.at < URL_CACHE_MS) return hit.url;
    const { rows } = await this.o.pool.query<{ url: string }>({
      name: 'node-url', text: `SELECT url FROM journal_nodes WHERE node_id = $1 AND heartbeat_at > now() - ${TTL_INTERVAL('$2')}`, values: [nodeId, this.o.ttlMs],
    });
    const url = rows[0]?.url;
    this.cache.set(nodeId, { url, at: this.now() });
    return url;
  }

  /** Stops the heartbeat and removes this node's row: the other nodes stop forwarding to it. Never throws. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.beating;
    try {
      await this.o.pool.query({ name: 'node-stop', text: 'DELETE FROM journal_nodes WHERE node_id = $1', values: [this.o.nodeId] });
    } catch (err) {
      // The daemon still stops; the row outlives it until its heartbeat is older than the TTL.
      this.o.log.warn({ err, nodeId: this.o.nodeId }, 'could not remove this node from journal_nodes');
    }
  }
}
