import type { Journal } from '../../../journal/journal.ts';
import type { JournalEvent } from '../../../journal/types.ts';
import type { Usage } from '../../../protocol/events/common.ts';
import { eventDef } from '../../../protocol/events/registry.ts';
import type { TurnReason } from '../../../protocol/events/turns.ts';
import type { WireContext } from '../../../protocol/events/wire.ts';
import type { VolatileListener } from '../../events/volatile-bus.ts';
import type { Clock } from '../../lib/clock.ts';
import { durableFrame, volatileFrame } from '../../ws/server-frames.ts';
import type { OutputFormat } from './args.ts';

/** What `--output-format json` prints (and stream-json's last line). */
export interface PrintResult {
  type: 'result';
  session_id: string;
  /** The last turn's final assistant text. */
  result: string;
  /** The last turn's `turn.ended` reason; null when no turn ended (the prompt was refused). */
  reason: TurnReason | null;
  /** Why the run failed: the last turn's error, or what cut the background work short. */
  error?: { kind: string; message: string };
  usage: Usage;
  duration_ms: number;
  num_turns: number;
}

/** Where stdout goes: a write that resolves once the data is handed to the OS (so an exit right after loses nothing). */
export type Write = (text: string) => Promise<void>;

/**
 * The run's standard output in one of the three formats. stream-json lines are the WebSocket's own event frames
 * (src/ws/server-frames.ts: the same builders, the same payloads), one per line as each event is committed or
 * published; text and json print only at the end.
 */
export class PrintOutput {
  /** Session events printed so far (stream-json), by seq: a frame is never printed twice. */
  private printed = 0;
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly format: OutputFormat,
    private readonly write: Write,
    private readonly deps: { journal: Pick<Journal, 'headSeq' | 'readRange'>; clock: Clock; wire: WireContext },
    private readonly sessionId: string,
  ) {}

  /** stream-json: the session's events journaled before the run subscribed (a new session's creation), from `afterSeq`. */
  async backlog(afterSeq: number): Promise<void> {
    this.printed = afterSeq;
    if (this.format !== 'stream-json') return;
    this.onCommitted(await this.deps.journal.readRange(this.sessionId, afterSeq + 1));
  }

  /** Subscriber of committed events: the session's durable frames, as a subscribed WebSocket client gets them. */
  readonly onCommitted = (events: JournalEvent[]): void => {
    if (this.format !== 'stream-json') return;
    for (const e of events) {
      if (e.stream !== this.sessionId || e.seq <= this.printed || eventDef(e.type)?.receivers === 'internal') continue;
      this.printed = e.seq;
      this.line(durableFrame(e, this.sessionId, this.deps.wire));
    }
  };

  /** Listener of volatile publishes: deltas, progress and shell output of the session. */
  readonly onVolatile: VolatileListener = (sessionId, type, payload, offset) => {
    if (this.format !== 'stream-json' || sessionId !== this.sessionId) return;
    this.line(volatileFrame({ type, seq: this.deps.journal.headSeq(sessionId), offset, sessionId, now: this.deps.clock.now(), payload, ctx: this.deps.wire }));
  };

  /** The end of the run: text prints the final assistant text of a run that completed (no limit cut it); json and stream-json the result object. */
  async finish(r: PrintResult): Promise<void> {
    if (this.format === 'text') {
      if (r.reason === 'completed' && !r.error && r.result) this.line(r.result.endsWith('\n') ? r.result.slice(0, -1) : r.result);
    } else {
      this.line(JSON.stringify(r));
    }
    await this.pending;
  }

  private line(text: string): void {
    this.pending = this.pending.then(() => this.write(`${text}\n`));
  }
}
