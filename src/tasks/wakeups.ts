import type { JournalEvent } from '../../journal/types.ts';
import type { SessionIndex } from '../../projections/session-index/session-index.ts';
import type { Message, TurnEndedPayload } from '../../protocol/events/turns.ts';
import type { Logger } from '../lib/logger.ts';
import type { EngineRegistry } from '../engine/runtime-registry.ts';
import { MAIN_AGENT } from '../engine/turn.ts';
import type { TaskNotifier } from './notify.ts';
import type { EventJournal } from '../events/journal.ts';
import { trackWork } from '../sessions/interaction.ts';
import type { LiveSessions } from '../sessions/live.ts';
import { known } from '../../protocol/events/known.ts';

/** What a follow-up turn is made of: the notes it delivers and the tasks they are about. */
export interface FollowUp {
  notes: Message[];
  taskIds: string[];
}

/** The session's work while its follow-up prompt is being queued (keeps it `busy` from the task's end to the turn's start). */
const FOLLOW_UP_WORK = 'task-follow-up';

export interface TaskWakeupDeps {
  notes: Pick<TaskNotifier, 'waiting' | 'take' | 'putBack'>;
  sessions: SessionIndex;
  live: LiveSessions;
  journal: EventJournal;
  engine: Pick<EngineRegistry, 'get' | 'stopping'>;
  log: Logger;
  /** Queues the follow-up prompt on the session's main agent (the prompt intake, with its checks; origin `task`). */
  submit(sessionId: string, followUp: FollowUp): Promise<unknown>;
  /**
   * Asked last, once a follow-up turn would start: false leaves the notes waiting for the session's next turn
   * (print mode: none in `exit` / `drain`, at most `print_max_turns` in `steer`). Absent: always.
   */
  admit?(sessionId: string): boolean;
}

/**
 * Wakes an idle agent when its background work ends (docs/tools.md "Background tasks"): a reaction to
 * committed events. When a task ends (`task.terminated`), or a main turn or a compaction ends with task notes
 * still waiting, and no turn of the main agent runs or is queued, the waiting notes become the prompt of a
 * follow-up turn (transcript origin `task`). Bounded: all the notes waiting at that moment make one turn,
 * notes arriving while it is being queued or runs join it before its next step, and a turn is started only
 * by a task's end (never by a turn's end alone). A turn that runs or is queued takes the notes itself
 * (src/engine/turn.ts, before each step); an archived or deleted session and a stopping daemon are not woken.
 */
export class TaskWakeups {
  /** Sessions whose follow-up prompt is being queued. */
  private readonly waking = new Set<string>();

  constructor(private readonly deps: TaskWakeupDeps) {}

  readonly onCommitted = (events: JournalEvent[]): Promise<unknown> | void => {
    const due = new Map<string, string | undefined>();
    for (const e of events) {
      if (known(e).type === 'task.terminated') due.set(e.stream, due.get(e.stream));
      else if (known(e).type === 'turn.ended' && ((e.payload as TurnEndedPayload).agent_id ?? MAIN_AGENT) === MAIN_AGENT) due.set(e.stream, (e.payload as TurnEndedPayload).turn_id);
      else if (known(e).type === 'compaction.completed' || known(e).type === 'compaction.failed') due.set(e.stream, due.get(e.stream));
    }
    if (!due.size) return;
    return Promise.all([...due].map(([sid, ended]) => this.consider(sid, ended)));
  };

  /** `ended`: the main turn whose end is being committed (its runtime still shows it active). */
  private async consider(sessionId: string, ended: string | undefined): Promise<void> {
    if (!this.deps.notes.waiting(sessionId) || this.waking.has(sessionId) || this.deps.engine.stopping) return;
    const session = this.deps.sessions.get(sessionId);
    const rt = this.deps.engine.get(sessionId);
    if (!session || session.archived || !rt) return;
    // A turn running (other than the one ending) or queued takes the notes before its next model request.
    const running = rt.activeTurnId !== undefined && rt.activeTurnId !== ended;
    if (running || rt.queuedTurns > 0) return;
    if (this.deps.admit && !this.deps.admit(sessionId)) return;
    const notes = this.deps.notes.take(sessionId);
    const taskIds = notes.flatMap((m) => {
      const id = (m.metadata?.task_notification as { task_id?: unknown } | undefined)?.task_id;
      return typeof id === 'string' ? [id] : [];
    });
    this.waking.add(sessionId);
    // Busy from now on: at a task's end its own work still counts (the flag flips later), so nothing is journaled here.
    this.deps.live.setWork(sessionId, FOLLOW_UP_WORK, true);
    try {
      await this.deps.submit(sessionId, { notes, taskIds });
    } catch (err) {
      // Refused (no usable model, ...): the session's next turn takes the notes instead; no retry loop.
      this.deps.notes.putBack(sessionId, notes);
      this.deps.log.warn({ err: (err as Error).message, session_id: sessionId }, 'could not start a follow-up turn for finished background tasks');
    } finally {
      this.waking.delete(sessionId);
      // The turn runs by now (its own state keeps the session busy), or the prompt was refused (idle again, journaled).
      await trackWork(this.deps, sessionId, FOLLOW_UP_WORK, false);
    }
  }
}

/** The metadata of a follow-up prompt's user message: the first note's `task_notification`, and every note's when several. */
export function followUpMetadata(f: FollowUp): Record<string, unknown> {
  const metas = f.notes.map((m) => m.metadata?.task_notification).filter((x) => x !== undefined);
  return { task_notification: metas[0] ?? {}, ...(metas.length > 1 ? { task_notifications: metas } : {}) };
}
