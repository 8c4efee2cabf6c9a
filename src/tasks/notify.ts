import type { EventJournal } from '../events/journal.ts';
import type { Message } from '../../protocol/events/turns.ts';
import type { Clock } from '../lib/clock.ts';
import type { Ids } from '../lib/ids.ts';
import type { Logger } from '../lib/logger.ts';
import { MAIN_AGENT } from '../engine/turn.ts';
import type { LiveTask, TaskOutput } from './task.ts';

export interface TaskNoteDeps {
  journal: EventJournal;
  clock: Clock;
  ids: Ids;
  log: Logger;
}

/**
 * Task completions on their way to the main agent: each is a note, a user message with
 * `metadata.task_notification` holding the task's status, exit code and output tail. A note waits here
 * until a turn of the session takes it before its next model request (`take`, called by the turn between
 * steps: never between a tool call and its result), or until the session, idle, is woken by a follow-up
 * turn whose prompt is the notes (src/tasks/wakeups.ts).
 */
export class TaskNotifier {
  private readonly pending = new Map<string, Message[]>();

  constructor(private readonly deps: TaskNoteDeps) {}

  /** Notes of a session not taken yet. */
  waiting(sessionId: string): number {
    return this.pending.get(sessionId)?.length ?? 0;
  }

  /** Queues the note of a background task that ended; `output` is the tail of its output (Bash). */
  notify(task: LiveTask, output?: TaskOutput): void {
    const sid = task.spec.sessionId;
    const { text, meta } = task.notice(output);
    const message: Message = {
      id: this.deps.ids.next('msg'), session_id: sid, role: 'user', content: [{ type: 'text', text }], created_at: this.deps.clock.now().toISOString(),
      metadata: { task_notification: meta },
    };
    this.pending.set(sid, [...(this.pending.get(sid) ?? []), message]);
  }

  /** Takes the session's waiting notes, oldest first (the caller puts them in the history). */
  take(sessionId: string): Message[] {
    const notes = this.pending.get(sessionId) ?? [];
    this.pending.delete(sessionId);
    return notes;
  }

  /** Puts back notes a follow-up turn could not take (its prompt was refused): the next turn of the session takes them. */
  putBack(sessionId: string, notes: Message[]): void {
    if (notes.length) this.pending.set(sessionId, [...notes, ...(this.pending.get(sessionId) ?? [])]);
  }

  /**
   * Daemon stop (after the engine and the tasks closed, before the journal): the notes no turn took are
   * journaled now, so the next model request after a restart sees them.
   */
  async close(): Promise<void> {
    const waiting = [...this.pending];
    this.pending.clear();
    for (const [sid, msgs] of waiting) {
      await this.deps.journal.append(msgs.map((message) => ({ stream: sid, type: 'message.created', payload: { agent_id: MAIN_AGENT, message } })))
        .catch((err) => this.deps.log.warn({ err, session_id: sid }, 'task notification not journaled'));
    }
  }
}
