import pty from 'node-pty';
import type { TerminalObject, TerminalStatus } from '../../protocol/schemas/terminals.ts';
import type { WsConnection } from '../ws/connection.ts';
import { terminalExitFrame, terminalOutputFrame } from '../ws/server-frames.ts';
import { signalGroup, signalSession } from './kill.ts';
import { Scrollback, splitText } from './scrollback.ts';

/** Output is sent at once when this much is pending... */
const FLUSH_CHARS = 16 * 1024;
/** ...else at most one frame per this window: the first output after a quiet spell goes out on the next tick (low echo latency). */
const FLUSH_INTERVAL_MS = 4;
/** Replays are cut in frames of this size, so one frame never holds the whole scrollback. */
const REPLAY_FRAME_CHARS = 64 * 1024;
/** Upper bound on waiting for node-pty to report a killed process. */
const EXIT_WAIT_MS = 5_000;

export type CloseReason = 'request' | 'session_archived' | 'server_stopped';

export interface TerminalSpec {
  id: string;
  sessionId: string;
  /** Absolute working directory. */
  cwdAbs: string;
  /** Working directory as reported (relative to the workspace root). */
  cwd: string;
  shell: string;
  cols: number;
  rows: number;
  env: Record<string, string>;
}

export interface TerminalDeps {
  now: () => Date;
  scrollbackChars: number;
}

/** One PTY running a shell: its scrollback, the connections attached to it, batching of its output. */
export class Terminal {
  readonly id: string;
  readonly sessionId: string;
  readonly cwd: string;
  readonly shell: string;
  readonly createdAt: string;
  readonly pid: number;
  cols: number;
  rows: number;
  status: TerminalStatus = 'running';
  exitedAt?: string;
  exitCode?: number | null;
  /** Set when the daemon ends the terminal (close, archive, shutdown). */
  closeReason: CloseReason | null = null;
  /** Resolves once the process has exited and its last output was sent. */
  readonly exited: Promise<void>;
  private readonly pty: pty.IPty;
  private readonly scrollback: Scrollback;
  private readonly attached = new Set<WsConnection>();
  private pending = '';
  private pendingOffset = 0;
  private cancelFlush: (() => void) | null = null;
  private lastFlush = -Infinity;

  constructor(spec: TerminalSpec, private readonly deps: TerminalDeps) {
    this.id = spec.id;
    this.sessionId = spec.sessionId;
    this.cwd = spec.cwd;
    this.shell = spec.shell;
    this.cols = spec.cols;
    this.rows = spec.rows;
    this.createdAt = deps.now().toISOString();
    this.scrollback = new Scrollback(deps.scrollbackChars);
    this.pty = pty.spawn(spec.shell, [], { name: 'xterm-256color', cols: spec.cols, rows: spec.rows, cwd: spec.cwdAbs, env: spec.env });
    this.pid = this.pty.pid;
    this.pty.onData(this.onData);
    this.exited = new Promise((resolve) => {
      this.pty.onExit(({ exitCode, signal }) => {
        this.onExit(signal ? null : exitCode);
        resolve();
      });
    });
  }

  toObject(): TerminalObject {
    const o: TerminalObject = {
      id: this.id, session_id: this.sessionId, cwd: this.cwd, shell: this.shell, cols: this.cols, rows: this.rows, status: this.status, created_at: this.createdAt,
    };
    if (this.status === 'exited') Object.assign(o, { exited_at: this.exitedAt, exit_code: this.exitCode ?? null });
    return o;
  }

  get running(): boolean {
    return this.status === 'running';
  }

  /** Offset just past the last output character. */
  get endOffset(): number {
    return this.scrollback.endOffset;
  }

  write(data: string): void {
    this.pty.write(data);
  }

  resize(cols: number, rows: number): void {
    this.pty.resize(cols, rows);
    this.cols = cols;
    this.rows = rows;
  }

  /** Where a replay from `since` starts (the oldest held offset when the gap is gone). */
  replayOffset(since?: number): number {
    return this.scrollback.from(since).offset;
  }

  /** Replays the scrollback from `since` to `conn`, then streams live output to it (or tells it the terminal has exited). */
  attach(conn: WsConnection, since?: number): void {
    // Pending output is already in the scrollback: send it to the others now so no one gets it twice or misses it.
    this.flush();
    const { offset, data } = this.scrollback.from(since);
    let at = offset;
    for (const piece of splitText(data, REPLAY_FRAME_CHARS)) {
      conn.send(this.outputFrame(at, piece, true));
      at += piece.length;
    }
    if (this.running) this.attached.add(conn);
    else conn.send(this.exitFrame());
  }

  detach(conn: WsConnection): boolean {
    return this.attached.delete(conn);
  }

  /** Frees the scrollback (a closed terminal is not replayed). */
  dropScrollback(): void {
    this.scrollback.clear();
  }

  /**
   * Hangs up the shell's process group and session, SIGKILLs what is left
   * after `graceMs`, and sweeps the session once the shell is gone (jobs that
   * ignored the hangup, e.g. `nohup`), so nothing outlives the terminal.
   */
  async kill(graceMs: number): Promise<void> {
    if (this.running) {
      signalGroup(this.pid, 'SIGHUP');
      await signalSession(this.pid, 'SIGHUP');
      if (!(await this.exitedWithin(graceMs))) {
        signalGroup(this.pid, 'SIGKILL');
        await signalSession(this.pid, 'SIGKILL');
      }
      if (!(await this.exitedWithin(EXIT_WAIT_MS))) throw new Error(`terminal ${this.id} (pid ${this.pid}) did not exit after SIGKILL`);
    }
    await signalSession(this.pid, 'SIGKILL');
  }

  private exitedWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    return Promise.race([this.exited.then(() => true), timeout]).finally(() => clearTimeout(timer));
  }

  private readonly onData = (data: string): void => {
    if (!this.pending) this.pendingOffset = this.scrollback.endOffset;
    this.scrollback.write(data);
    this.pending += data;
    if (this.pending.length >= FLUSH_CHARS) return this.flush();
    if (this.cancelFlush) return;
    const wait = this.lastFlush + FLUSH_INTERVAL_MS - performance.now();
    if (wait > 0) {
      const t = setTimeout(this.flush, wait);
      this.cancelFlush = () => clearTimeout(t);
    } else {
      const t = setImmediate(this.flush);
      this.cancelFlush = () => clearImmediate(t);
    }
  };

  /** Sends pending output to the attached connections; each send enforces that connection's buffered-bytes cap. */
  private readonly flush = (): void => {
    this.cancelFlush?.();
    this.cancelFlush = null;
    if (!this.pending) return;
    const data = this.pending;
    this.pending = '';
    this.lastFlush = performance.now();
    let frame: string | undefined;
    for (const c of this.attached) {
      if (!c.open) {
        this.attached.delete(c);
        continue;
      }
      frame ??= this.outputFrame(this.pendingOffset, data, false);
      c.send(frame);
    }
  };

  private onExit(exitCode: number | null): void {
    this.flush();
    this.status = 'exited';
    this.exitedAt = this.deps.now().toISOString();
    this.exitCode = exitCode;
    const frame = this.exitFrame();
    for (const c of this.attached) c.send(frame);
    this.attached.clear();
  }

  private outputFrame(offset: number, data: string, replay: boolean): string {
    return terminalOutputFrame({ sessionId: this.sessionId, terminalId: this.id, offset, data, replay, now: this.deps.now() });
  }

  private exitFrame(): string {
    return terminalExitFrame({ sessionId: this.sessionId, terminalId: this.id, exitCode: this.exitCode ?? null, exitedAt: this.exitedAt!, now: this.deps.now() });
  }
}
