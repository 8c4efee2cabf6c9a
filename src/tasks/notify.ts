import type { JournalEvent } from '../../journal/types.ts';
import type { EventJournal } from '../events/journal.ts';
import { EngineEvents } from '../engine/events.ts';
import type { Message } from '../../protocol/events/turns.ts';
import type { Clock } from '../lib/clock.ts';
import type { Ids } from '../lib/ids.ts';
import type { Logger } from '../app/logger.ts';
import { MAIN_AGENT } from '../engine/turn.ts';
import type { LiveTask } from './task.ts';

const IDLE_POLL_MS = 20;
const IDLE_POLLS = 100;

export interface TaskNoteDeps {
  journal: EventJournal;
  clock: Clock;
  ids: Ids;
  log: Logger;
  /**
   * The loaded main-agent runtimes (the engine's table, built before both): a note waits while its
   * session's runtime is busy and joins its in-memory history.
   */
  runtimes: { get(sessionId: string): { readonly busy: boolean; readonly history: Message[] } | undefined };
}

/**
 * Delivers task completions to the agent as a note in the session: a user message
 * (`message.created`, metadata.task_notification) that the next model request sees.
 * It never starts a turn. While a turn runs the note waits for `turn.ended`, because a
 * message slipped between a tool call and its result would break the history.
 */
export class TaskNotifier {
  private readonly pending = new Map<string, Message[]>();
  /** The daemon is stopping: notes still waiting were journaled by `close`; nothing polls any more. */
  private closed = false;
  /** Flushes a turn's end started (close waits for them: one may be appending). */
  private readonly flushing = new Set<Promise<void>>();

  constructor(private readonly deps: TaskNoteDeps) {}

  /** Subscriber of committed events (src/app/subscribers.ts): a turn's end releases the notes waiting for it. */
  readonly onCommitted = (events: JournalEvent[]): void => {
    for (const e of events) {
      if (e.type !== EngineEvents.turnEnded || !this.pending.has(e.stream)) continue;
      const p = this.flush(e.stream).catch((err) => this.deps.log.warn({ err, session_id: e.stream }, 'task notification not journaled'));
      this.flushing.add(p);
      void p.finally(() => this.flushing.delete(p));
    }
  };

  /**
   * Daemon stop (after the engine and the tasks closed, before the journal): the notes still waiting for a turn's
   * end are journaled now, so the next model request after a restart sees them.
   */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.flushing]);
    const waiting = [...this.pending];
    this.pending.clear();
    for (const [sid, msgs] of waiting) {
      await this.append(sid, msgs).catch((err) => this.deps.log.warn({ err, session_id: sid }, 'task notification not journaled'));
    }
  }

  /** Notes of a session waiting for its turn's end (tests). */
  waiting(sessionId: string): number {
    return this.pending.get(sessionId)?.length ?? 0;
  }

  notify(task: LiveTask): Promise<void> {
    const sid = task.spec.sessionId;
    const { text, meta } = task.notice();
    const message: Message = {
      id: this.deps.ids.next('msg'), session_id: sid, role: 'user', content: [{ type: 'text', text }], created_at: this.deps.clock.now().toISOString(),
      metadata: { task_notification: meta },
    };
    const queue = this.pending.get(sid) ?? [];
    queue.push(message);
    this.pending.set(sid, queue);
    return this.flush(sid, 1);
  }

  /** Appends the session's pending notes once its runtime is idle (or absent: then the journal is enough). */
  private async flush(sid: string, polls = IDLE_POLLS): Promise<void> {
    for (let i = 0; i < polls && !this.closed; i++) {
      const rt = this.deps.runtimes.get(sid);
      if (!rt?.busy) {
        const msgs = this.pending.get(sid) ?? [];
        this.pending.delete(sid);
        if (!msgs.length) return;
        // Into the live history synchronously (no await since the busy check), then on disk.
        rt?.history.push(...msgs);
        await this.append(sid, msgs);
        return;
      }
      if (i + 1 < polls) await new Promise((r) => setTimeout(r, IDLE_POLL_MS));
    }
  }

  private async append(sid: string, msgs: Message[]): Promise<void> {
    await this.deps.journal.append(msgs.map((message) => ({ stream: sid, type: EngineEvents.messageCreated, payload: { agent_id: MAIN_AGENT, message } })));
  }
}
