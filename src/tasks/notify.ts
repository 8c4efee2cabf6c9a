import { monotonicFactory } from 'ulid';
import type { AppContext } from '../app/context.ts';
import { EngineEvents } from '../engine/events.ts';
import type { Message } from '../events/turns.ts';
import { MAIN_AGENT } from '../engine/turn.ts';
import type { LiveTask } from './task.ts';

const nextUlid = monotonicFactory();
const IDLE_POLL_MS = 20;
const IDLE_POLLS = 100;

/**
 * Delivers task completions to the agent as a note in the session: a user message
 * (`message.created`, metadata.task_notification) that the next model request sees.
 * It never starts a turn. While a turn runs the note waits for `turn.ended`, because a
 * message slipped between a tool call and its result would break the history.
 */
export class TaskNotifier {
  private readonly pending = new Map<string, Message[]>();

  constructor(private readonly app: AppContext) {
    app.journal.on('committed', (events: Array<{ stream: string; type: string }>) => {
      for (const e of events) if (e.type === EngineEvents.turnEnded && this.pending.has(e.stream)) void this.flush(e.stream);
    });
  }

  notify(task: LiveTask): Promise<void> {
    const sid = task.spec.sessionId;
    const { text, meta } = task.notice();
    const message: Message = {
      id: `msg_${nextUlid()}`, session_id: sid, role: 'user', content: [{ type: 'text', text }], created_at: this.app.clock.now().toISOString(),
      metadata: { task_notification: meta },
    };
    const queue = this.pending.get(sid) ?? [];
    queue.push(message);
    this.pending.set(sid, queue);
    return this.flush(sid, 1);
  }

  /** Appends the session's pending notes once its runtime is idle (or absent: then the journal is enough). */
  private async flush(sid: string, polls = IDLE_POLLS): Promise<void> {
    for (let i = 0; i < polls; i++) {
      const rt = this.app.engine.get(sid);
      if (!rt?.busy) {
        const msgs = this.pending.get(sid) ?? [];
        this.pending.delete(sid);
        if (!msgs.length) return;
        // Into the live history synchronously (no await since the busy check), then on disk.
        rt?.history.push(...msgs);
        await this.app.journal.append(msgs.map((message) => ({ stream: sid, type: EngineEvents.messageCreated, payload: { agent_id: MAIN_AGENT, message } })));
        return;
      }
      if (i + 1 < polls) await new Promise((r) => setTimeout(r, IDLE_POLL_MS));
    }
  }
}
