import type { EventJournal } from '../events/journal.ts';
import type { JournalEvent } from '../../journal/types.ts';
import type { Logger } from '../lib/logger.ts';
import type { Clock } from '../lib/clock.ts';
import type { Ids } from '../lib/ids.ts';
import { isLoopbackHost, type ServeOptions } from '../app/options.ts';
import { Codes } from '../../protocol/codes.ts';
import { ApiError, notFound } from '../../protocol/errors.ts';
import type { TerminalObject } from '../../protocol/schemas/terminals.ts';
import type { WsConnection } from '../ws/connection.ts';
import { Terminal, type CloseReason, type TerminalSpec } from './terminal.ts';
import type { NewStreamEvent } from '../../protocol/events/registry.ts';
import { known } from '../../protocol/events/known.ts';

/** Characters of output kept per terminal for replay on attach (~256 KiB of ASCII). */
export const SCROLLBACK_CHARS = 256 * 1024;
/** Time a hung-up shell gets to exit before its process group is SIGKILLed. */
export const CLOSE_GRACE_MS = 2_000;
/** Exited terminals listed per session; older ones are forgotten. */
const KEEP_EXITED = 32;

export interface TerminalServiceDeps {
  journal: EventJournal;
  log: Logger;
  options: Pick<ServeOptions, 'host' | 'allowRemoteTerminals'>;
  clock: Clock;
  ids: Ids;
  graceMs?: number;
  scrollbackChars?: number;
}

/** Terminals are mounted on loopback binds only, unless --allow-remote-terminals. */
export function terminalsEnabled(options: Pick<ServeOptions, 'host' | 'allowRemoteTerminals'>): boolean {
  return isLoopbackHost(options.host) || options.allowRemoteTerminals;
}

/**
 * The terminals of this daemon, per session. Live state only: lifecycle facts
 * are journaled on the session stream, output is not; nothing survives a restart.
 */
export class TerminalService {
  readonly enabled: boolean;
  private readonly byId = new Map<string, Terminal>();
  private readonly bySession = new Map<string, Terminal[]>();
  /** Resolves once a terminal's end is journaled. */
  private readonly settled = new Map<string, Promise<void>>();
  private stopping = false;

  constructor(private readonly deps: TerminalServiceDeps) {
    this.enabled = terminalsEnabled(deps.options);
  }

  list(sessionId: string): TerminalObject[] {
    return (this.bySession.get(sessionId) ?? []).map((t) => t.toObject());
  }

  /** A terminal by id (WebSocket frames name no session); 40414 otherwise. */
  find(terminalId: string): Terminal {
    const t = this.byId.get(terminalId);
    if (!t) throw notFound(Codes.TERMINAL_NOT_FOUND, 'terminal', terminalId);
    return t;
  }

  /** A terminal of `sessionId`; 40414 otherwise. */
  get(sessionId: string, terminalId: string): Terminal {
    const t = this.byId.get(terminalId);
    if (!t || t.sessionId !== sessionId) throw notFound(Codes.TERMINAL_NOT_FOUND, 'terminal', terminalId);
    return t;
  }

  /** Spawns the shell and journals `terminal.opened`. */
  async open(spec: Omit<TerminalSpec, 'id'>): Promise<TerminalObject> {
    if (this.stopping) throw new ApiError(Codes.INTERNAL, 'server shutting down');
    let t: Terminal;
    try {
      t = new Terminal({ ...spec, id: this.deps.ids.next('term') }, { now: () => this.deps.clock.now(), scrollbackChars: this.deps.scrollbackChars ?? SCROLLBACK_CHARS });
    } catch (err) {
      this.deps.log.error({ err, shell: spec.shell }, 'terminal spawn failed');
      throw new ApiError(Codes.INTERNAL, `could not start the shell: ${spec.shell}`);
    }
    this.byId.set(t.id, t);
    const list = this.bySession.get(t.sessionId) ?? [];
    list.push(t);
    this.bySession.set(t.sessionId, list);
    this.settled.set(t.id, t.exited.then(() => this.ended(t)));
    try {
      await this.deps.journal.append([{ stream: t.sessionId, type: 'terminal.opened', payload: { terminal: t.toObject() } }]);
    } catch (err) {
      await this.close(t, 'request').catch((e) => this.deps.log.error({ err: e, terminal_id: t.id }, 'terminal kill failed'));
      throw err;
    }
    return t.toObject();
  }

  /** Ends a terminal (no-op once exited) and resolves when the process is gone and the end is journaled. */
  async close(t: Terminal, reason: CloseReason): Promise<void> {
    if (t.running) t.closeReason ??= reason;
    await t.kill(this.deps.graceMs ?? CLOSE_GRACE_MS);
    await this.settled.get(t.id);
  }

  /** `close` once the caller has answered (a WebSocket ack): a failure (the kill, or journaling the exit) is logged. */
  closeLater(t: Terminal, reason: CloseReason): void {
    void this.close(t, reason).catch((err) => this.deps.log.error({ err, terminal_id: t.id }, 'closing the terminal failed'));
  }

  async closeSession(sessionId: string, reason: CloseReason): Promise<void> {
    const running = (this.bySession.get(sessionId) ?? []).filter((t) => t.running);
    await Promise.all(running.map((t) => this.close(t, reason)));
  }

  /** Daemon stop: no new terminals, every running one ended (and journaled) before the journal closes. */
  async closeAll(): Promise<void> {
    this.stopping = true;
    const running = [...this.byId.values()].filter((t) => t.running);
    const results = await Promise.allSettled(running.map((t) => this.close(t, 'server_stopped')));
    for (const r of results) if (r.status === 'rejected') this.deps.log.error({ err: r.reason }, 'terminal kill failed');
  }

  /** A WebSocket connection went away: stop sending it output. */
  detachConnection(conn: WsConnection): void {
    for (const t of this.byId.values()) t.detach(conn);
  }

  /** Subscriber of committed events (src/app/subscribers.ts): archiving a session ends its terminals (not once stopping). */
  readonly onCommitted = (events: JournalEvent[]): void => {
    if (this.stopping) return;
    for (const e of events) {
      if (known(e).type !== 'session.archived' || e.imported || !this.bySession.has(e.stream)) continue;
      this.closeSession(e.stream, 'session_archived').catch((err) => this.deps.log.error({ err, session_id: e.stream }, 'closing terminals of an archived session failed'));
    }
  };

  /** Journals how the terminal ended and forgets the oldest exited terminals of its session. */
  private async ended(t: Terminal): Promise<void> {
    const terminal = t.toObject();
    const event: NewStreamEvent = t.closeReason
      ? { stream: t.sessionId, type: 'terminal.closed', payload: { terminal, reason: t.closeReason } }
      : { stream: t.sessionId, type: 'terminal.exited', payload: { terminal } };
    if (t.closeReason) t.dropScrollback();
    this.prune(t.sessionId);
    try {
      await this.deps.journal.append([event]);
    } catch (err) {
      this.deps.log.error({ err, terminal_id: t.id }, 'journaling the end of a terminal failed');
    }
  }

  private prune(sessionId: string): void {
    const list = this.bySession.get(sessionId) ?? [];
    const exited = list.filter((t) => !t.running);
    const forget = new Set(exited.slice(0, Math.max(0, exited.length - KEEP_EXITED)));
    if (!forget.size) return;
    for (const t of forget) {
      this.byId.delete(t.id);
      this.settled.delete(t.id);
    }
    this.bySession.set(sessionId, list.filter((t) => !forget.has(t)));
  }
}
