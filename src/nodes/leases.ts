import type pg from 'pg';

/**
 * Which node runs a session's live runtime (docs/scale-out.md "Leases"). On the shared PostgreSQL journal a node
 * holds a session's lease while its runtime is loaded, renews it while it lives, and gives it back when the runtime
 * unloads; another node may take a lease over once it has expired (its holder died). Times are the database's
 * `now()`, so the nodes' clocks never disagree about an expiry. On LevelDB one daemon holds everything.
 */
export interface SessionLeases {
  /** This node's id (logged at start; the owner named in errors). */
  readonly nodeId: string;
  /**
   * Takes the session's lease for this node when it is free, expired or already this node's. Returns the node that
   * held it before when that was another one (`previous`: its last writes must be followed before this node
   * writes), or `held: false` with the live owner.
   */
  acquire(sessionId: string): Promise<Acquired>;
  /** Gives the lease back (the runtime unloaded, the session deleted). */
  release(sessionId: string): Promise<void>;
  /** Extends every lease this node holds; returns the sessions it held that another node has taken meanwhile. */
  renew(): Promise<string[]>;
  /**
   * Takes the expired leases this node does not hold (their holders died, or a takeover here could not settle them
   * and ended them again): the sessions, each with its previous node.
   */
  takeExpired(): Promise<Array<{ sessionId: string; previous: string }>>;
  /** The id of another node whose lease on the session is live, or undefined. */
  ownerElsewhere(sessionId: string): Promise<string | undefined>;
  /** Ends these leases of this node now (a takeover that could not settle them: the next round takes them again). */
  expire(sessionIds: string[]): Promise<void>;
  /** Ends every lease this node holds now (a graceful stop: the other nodes take them over on their next round). */
  expireHeld(): Promise<void>;
  /** The sessions whose lease this node holds. */
  held(): ReadonlySet<string>;
}

export type Acquired = { held: true; previous?: string } | { held: false; owner: string };

/** The default lease time (`SVC_CODE_LEASE_TTL_MS`): a dead node's sessions are taken over within it plus a second. */
export const DEFAULT_LEASE_TTL_MS = 10_000;

/** How often a node renews its leases: three times per lease time. */
export const renewEveryMs = (ttlMs: number): number => Math.max(50, Math.floor(ttlMs / 3));

/** How often a node looks for expired leases (a cheap read of the few leased rows): every second, or more often. */
export const takeoverEveryMs = (ttlMs: number): number => Math.min(1_000, renewEveryMs(ttlMs));

/** The single-node journal (LevelDB): this daemon holds every session. */
export class LocalLeases implements SessionLeases {
  private readonly mine = new Set<string>();
  constructor(readonly nodeId: string) {}
  async acquire(sessionId: string): Promise<Acquired> {
    this.mine.add(sessionId);
    return { held: true };
  }
  async release(sessionId: string): Promise<void> {
    this.mine.delete(sessionId);
  }
  async renew(): Promise<string[]> {
    return [];
  }
  async takeExpired(): Promise<Array<{ sessionId: string; previous: string }>> {
    return [];
  }
  async ownerElsewhere(): Promise<string | undefined> {
    return undefined;
  }
  async expire(sessionIds: string[]): Promise<void> {
    for (const id of sessionIds) this.mine.delete(id);
  }
  async expireHeld(): Promise<void> {
    this.mine.clear();
  }
  held(): ReadonlySet<string> {
    return this.mine;
  }
}

/** Leases in the shared database's `session_leases` (journal/pg/schema.ts, schema 2). */
export class PgSessionLeases implements SessionLeases {
  private readonly mine = new Set<string>();
  private readonly ttl: string;

  constructor(private readonly pool: pg.Pool, readonly nodeId: string, ttlMs: number) {
    this.ttl = `${Math.max(1, Math.round(ttlMs))} milliseconds`;
  }

  async acquire(sessionId: string, tries = 3): Promise<Acquired> {
    // One statement: insert, or take the row over when it is this node's or expired. The old row's holder comes
    // back through the CTE (a row locked by the upsert is read before it changes).
    const { rows } = await this.pool.query<{ node_id: string; previous: string | null }>({
      name: 'lease-acquire',
      text: `WITH before AS (SELECT node_id FROM session_leases WHERE session_id = $1)
             INSERT INTO session_leases AS l (session_id, node_id, expires_at) VALUES ($1, $2, now() + $3::interval)
             ON CONFLICT (session_id) DO UPDATE SET node_id = $2, expires_at = now() + $3::interval,
               taken_at = CASE WHEN l.node_id = $2 THEN l.taken_at ELSE now() END,
               generation = CASE WHEN l.node_id = $2 THEN l.generation ELSE l.generation + 1 END
             WHERE l.node_id = $2 OR l.expires_at < now()
             RETURNING l.node_id, (SELECT node_id FROM before) AS previous`,
      values: [sessionId, this.nodeId, this.ttl],
    });
    if (rows.length) {
      this.mine.add(sessionId);
      const previous = rows[0].previous;
      return previous && previous !== this.nodeId ? { held: true, previous } : { held: true };
    }
    const owner = await this.ownerElsewhere(sessionId);
    // Expired or released between the two statements: try again (a few times: the row may keep changing hands).
    return owner || tries <= 1 ? { held: false, owner: owner ?? 'unknown' } : this.acquire(sessionId, tries - 1);
  }

  async release(sessionId: string): Promise<void> {
    this.mine.delete(sessionId);
    await this.pool.query({ name: 'lease-release', text: 'DELETE FROM session_leases WHERE session_id = $1 AND node_id = $2', values: [sessionId, this.nodeId] });
  }

  async renew(): Promise<string[]> {
    if (!this.mine.size) return [];
    const ids = [...this.mine];
    const { rows } = await this.pool.query<{ session_id: string }>({
      name: 'lease-renew',
      text: `UPDATE session_leases SET expires_at = now() + $3::interval
             WHERE node_id = $1 AND session_id = ANY($2::text[]) RETURNING session_id`,
      values: [this.nodeId, ids, this.ttl],
    });
    const kept = new Set(rows.map((r) => r.session_id));
    const lost = ids.filter((id) => !kept.has(id) && this.mine.has(id));
    for (const id of lost) this.mine.delete(id);
    return lost;
  }

  async takeExpired(): Promise<Array<{ sessionId: string; previous: string }>> {
    // SKIP LOCKED: two nodes looking at once take disjoint rows.
    const { rows } = await this.pool.query<{ session_id: string; previous: string }>({
      name: 'lease-take-expired',
      text: `WITH expired AS (
               SELECT session_id, node_id FROM session_leases
               WHERE expires_at < now() AND NOT (session_id = ANY($3::text[]))
               ORDER BY session_id LIMIT 100 FOR UPDATE SKIP LOCKED)
             UPDATE session_leases l SET node_id = $1, expires_at = now() + $2::interval, taken_at = now(), generation = l.generation + 1
             FROM expired WHERE l.session_id = expired.session_id
             RETURNING l.session_id, expired.node_id AS previous`,
      values: [this.nodeId, this.ttl, [...this.mine]],
    });
    for (const r of rows) this.mine.add(r.session_id);
    return rows.map((r) => ({ sessionId: r.session_id, previous: r.previous }));
  }

  async ownerElsewhere(sessionId: string): Promise<string | undefined> {
    // Held here (renewals drop what another node took): no query on the path of every command this node runs.
    if (this.mine.has(sessionId)) return undefined;
    const { rows } = await this.pool.query<{ node_id: string }>({
      name: 'lease-owner',
      text: 'SELECT node_id FROM session_leases WHERE session_id = $1 AND expires_at >= now() AND node_id <> $2',
      values: [sessionId, this.nodeId],
    });
    return rows[0]?.node_id;
  }

  async expire(sessionIds: string[]): Promise<void> {
    for (const id of sessionIds) this.mine.delete(id);
    await this.pool.query({
      name: 'lease-expire',
      text: `UPDATE session_leases SET expires_at = now() - interval '1 millisecond' WHERE node_id = $1 AND session_id = ANY($2::text[])`,
      values: [this.nodeId, sessionIds],
    });
  }

  async expireHeld(): Promise<void> {
    this.mine.clear();
    await this.pool.query({ name: 'lease-expire-held', text: 'UPDATE session_leases SET expires_at = now() - interval \'1 millisecond\' WHERE node_id = $1', values: [this.nodeId] });
  }

  held(): ReadonlySet<string> {
    return this.mine;
  }
}
