import type { Logger } from '../lib/logger.ts';
import { renewEveryMs, takeoverEveryMs, type SessionLeases } from './leases.ts';

/** What the keeper asks of the engine: whether a session's runtime is loaded (or loading) here, and its unload. */
export interface LeasedRuntimes {
  holds(sessionId: string): boolean;
  /** The session's runtimes closed now (a lease lost to another node: this node must stop writing to it). */
  unload(sessionId: string): Promise<void>;
}

/** A session taken over from a dead node, settled as a restart settles it (docs/interruptions.md). */
export interface Takeover {
  /** Resolves once this node has followed every commit made before the call (the previous owner's last writes). */
  catchUp(): Promise<void>;
  /** Ends the session's open turn as interrupted, cancels its approvals, dismisses its questions, pauses its goal. */
  settle(sessionId: string): Promise<void>;
}

/** A round that keeps failing is logged this often at most. */
const LOG_EVERY_MS = 30_000;

export interface KeeperDeps {
  leases: SessionLeases;
  runtimes: LeasedRuntimes;
  log: Logger;
  ttlMs: number;
}

/**
 * Keeps this node's leases (docs/scale-out.md "Leases"), in rounds every second (or a third of the lease time, when
 * shorter) from `start`:
 * 1. every third of the lease time, renews every lease held; a session whose lease another node took meanwhile
 *    (this node was cut off longer than the lease time) is unloaded here at once;
 * 2. gives back the leases of sessions whose runtime is no longer loaded (an idle unload, a start-up settlement);
 * 3. with `takeOver` set (the daemon, once it follows the other nodes): takes the expired leases of dead nodes and
 *    settles each session after catching up with its previous owner's writes, then gives the lease back (the
 *    session is idle; its next command loads it on whichever node it reaches).
 */
export class LeaseKeeper {
  private timer: NodeJS.Timeout | undefined;
  private takeover: Takeover | undefined;
  private round: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly deps: KeeperDeps) {}

  /**
   * The rounds begin (once what the last run left open is settled: a round gives back the leases of sessions no
   * runtime holds, and would give back those claimed at start before they are settled; src/app/core.ts).
   */
  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => this.kick(), takeoverEveryMs(this.deps.ttlMs));
    this.timer.unref();
  }

  /** From now on expired leases of other nodes are taken over (the daemon calls it once its follower runs). */
  takeOver(takeover: Takeover): void {
    this.takeover = takeover;
    this.kick();
  }

  /** No more takeovers (the daemon's stop, before its follower stops: a takeover settles only what it has followed). */
  async stopTakingOver(): Promise<void> {
    this.takeover = undefined;
    await this.round;
  }

  /** Runs a round now unless one is running (tests and the start call it; the timer does otherwise). */
  kick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.round ??= this.runRound().then(() => this.succeeded(), (err: unknown) => this.failed(err))
      .finally(() => { this.round = undefined; });
    return this.round;
  }

  /** When rounds began failing (the database away): logged once, then every LOG_EVERY_MS, and when they work again. */
  private failingSince: number | undefined;
  private lastFailureLog = 0;

  private failed(err: unknown): void {
    const now = Date.now();
    this.failingSince ??= now;
    if (now - this.lastFailureLog < LOG_EVERY_MS) return;
    this.lastFailureLog = now;
    this.deps.log.warn({ err, failingForMs: now - this.failingSince }, 'session leases: a round failed; retried every second');
  }

  private succeeded(): void {
    if (this.failingSince === undefined) return;
    this.deps.log.info({ failedForMs: Date.now() - this.failingSince }, 'session leases: rounds work again');
    this.failingSince = undefined;
    this.lastFailureLog = 0;
  }

  private lastRenewal = 0;

  private async runRound(): Promise<void> {
    const { leases, runtimes, ttlMs } = this.deps;
    if (Date.now() - this.lastRenewal >= renewEveryMs(ttlMs) - takeoverEveryMs(ttlMs) / 2) await this.renew();
    for (const id of [...leases.held()]) if (!runtimes.holds(id)) await leases.release(id);
    if (this.takeover) await this.takeOverExpired(this.takeover);
  }

  private async renew(): Promise<void> {
    const { leases, runtimes, log } = this.deps;
    this.lastRenewal = Date.now();
    for (const id of await leases.renew()) {
      log.warn({ session_id: id }, 'session lease lost to another node: its runtime is unloaded here');
      await runtimes.unload(id);
    }
  }

  private async takeOverExpired(takeover: Takeover): Promise<void> {
    const taken = await this.deps.leases.takeExpired();
    if (!taken.length) return;
    const { leases, runtimes, log } = this.deps;
    try {
      await takeover.catchUp();
    } catch (err) {
      // Not settled on a stale view: the leases end again, and the next round (here or elsewhere) takes them.
      log.warn({ err, sessions: taken.length }, 'session takeover: could not catch up with the journal; retried on the next round');
      await leases.expire(taken.map((t) => t.sessionId));
      return;
    }
    for (const { sessionId, previous } of taken) {
      log.warn({ session_id: sessionId, previous_node: previous }, 'took over the session of a node whose lease expired');
      try {
        await takeover.settle(sessionId);
      } catch (err) {
        log.warn({ err, session_id: sessionId }, 'session takeover: settling the session failed; retried on the next round');
        await leases.expire([sessionId]);
        continue;
      }
      if (!runtimes.holds(sessionId)) await leases.release(sessionId);
    }
  }

  /** No round after this one; every lease held ends now, so the other nodes take the sessions over on their next round. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.round;
    await this.deps.leases.expireHeld().catch((err: unknown) => this.deps.log.warn({ err }, 'session leases: ending them at stop failed (they expire by themselves)'));
  }
}
