import { mkdir, open, stat } from 'node:fs/promises';
import path from 'node:path';
import type { SessionIndex } from '../../projections/session-index/session-index.ts';
import type { JournalEvent } from '../../journal/types.ts';
import type { Logger } from '../lib/logger.ts';
import type { ConfigService } from '../config/service.ts';
import type { EventJournal } from '../events/journal.ts';
import type { VolatileBus } from '../events/volatile-bus.ts';
import type { Clock } from '../lib/clock.ts';
import type { Ids } from '../lib/ids.ts';
import { ApiError } from '../../protocol/errors.ts';
import { Codes } from '../../protocol/codes.ts';
import { BashTask, type LiveTask, type TaskObject, type TaskOutput } from './task.ts';
import type { TaskNotifier } from './notify.ts';
import { trackWork } from '../sessions/interaction.ts';
import type { LiveSessions } from '../sessions/live.ts';
import { known } from '../../protocol/events/known.ts';

/** The output tail a Bash task's task.terminated carries. */
const TERMINATED_PREVIEW_BYTES = 4096;

export interface TaskDeps {
  /** Task logs go under `<home>/tasks/<session_id>/`. */
  home: string;
  journal: EventJournal;
  bus: VolatileBus;
  sessions: SessionIndex;
  live: LiveSessions;
  config: ConfigService;
  clock: Clock;
  ids: Ids;
  log: Logger;
  /** Delivers a background task's completion to its agent. */
  notes: Pick<TaskNotifier, 'notify'>;
}

export interface StartBash {
  sessionId: string; command: string; description?: string; cwd: string;
  background: boolean; timeoutMs: number; graceMs: number; maxRunning?: number;
  /** The Bash tool call that starts it. */
  toolCallId?: string;
}

/**
 * Background (and adoptable foreground) Bash tasks of live sessions. Live-only by
 * design (Core): nothing is replayed, so a cold session lists no tasks.
 */
/** Where a session's task logs live (`<home>/tasks/<session>/`). */
export function taskLogDir(home: string, sessionId: string): string {
  return path.join(home, 'tasks', sessionId);
}

export class TaskService {
  private readonly bySession = new Map<string, Map<string, LiveTask>>();
  /** Daemon stopping: completions are no longer worth a note to the agent. */
  private closing = false;

  constructor(private readonly deps: TaskDeps) {}

  /** Subscriber of committed events (src/app/subscribers.ts): archiving a session ends its tasks, so no process is left behind. */
  readonly onCommitted = (events: JournalEvent[]): void => {
    for (const e of events) if (known(e).type === 'session.archived') void this.killSession(e.stream);
  };

  list(sessionId: string): LiveTask[] {
    return [...(this.bySession.get(sessionId)?.values() ?? [])];
  }

  get(sessionId: string, taskId: string): LiveTask {
    const t = this.bySession.get(sessionId)?.get(taskId);
    if (!t) throw new ApiError(Codes.TASK_NOT_FOUND, `task ${taskId} not found`);
    return t;
  }

  runningBackground(sessionId?: string): LiveTask[] {
    const all = sessionId ? this.list(sessionId) : [...this.bySession.values()].flatMap((m) => [...m.values()]);
    return all.filter((t) => t.status === 'running' && t.background);
  }

  /** Starts a command; throws a plain Error (a tool error) when max_running_tasks is reached. */
  async start(o: StartBash): Promise<BashTask> {
    if (o.background && o.maxRunning !== undefined && this.runningBackground().length >= o.maxRunning) {
      throw new Error(`max_running_tasks (${o.maxRunning}) reached; wait for a task to finish or cancel one`);
    }
    const id = this.newId();
    const task = new BashTask({
      id, sessionId: o.sessionId, command: o.command, description: o.description ?? '', cwd: o.cwd, logFile: await this.logFile(o.sessionId, id),
      background: o.background, timeoutMs: o.timeoutMs, graceMs: o.graceMs, now: () => this.deps.clock.now(),
      ...(o.toolCallId ? { toolCallId: o.toolCallId } : {}),
    });
    task.onData((data) => { if (task.background) this.deps.bus.publish(o.sessionId, 'shell.output', { task_id: id, data }); });
    await this.register(task);
    return task;
  }

  /** Tracks a task (a subagent's, or a Bash command's); a background one is announced with task.started. */
  async register(task: LiveTask): Promise<void> {
    let m = this.bySession.get(task.spec.sessionId);
    if (!m) this.bySession.set(task.spec.sessionId, (m = new Map()));
    m.set(task.spec.id, task);
    void task.done.then(() => this.finished(task));
    if (task.background) await this.announce(task);
  }

  /** The id a new task gets. */
  newId(): string {
    return this.deps.ids.next('task');
  }

  /** Where a task of the session keeps its output. */
  async logFile(sessionId: string, taskId: string): Promise<string> {
    const dir = taskLogDir(this.deps.home, sessionId);
    await mkdir(dir, { recursive: true });
    return path.join(dir, `${taskId}.log`);
  }

  /** A running foreground task goes to the background (timeout, or POST :detach). */
  async detach(task: LiveTask, timeoutMs: number): Promise<boolean> {
    if (task.background || task.status !== 'running') return false;
    task.toBackground(timeoutMs);
    await this.announce(task);
    return true;
  }

  cancel(task: LiveTask): void { task.stop('cancel'); }

  /** The tail of the task's log: at most `bytes` bytes (whole UTF-8 characters). */
  async tail(task: LiveTask, bytes: number): Promise<string> {
    const size = (await stat(task.spec.logFile).catch(() => ({ size: 0 }))).size;
    const n = Math.min(size, bytes);
    if (n === 0) return '';
    const fh = await open(task.spec.logFile, 'r');
    try {
      const buf = Buffer.alloc(n);
      await fh.read(buf, 0, n, size - n);
      let start = 0;
      while (start < n && (buf[start]! & 0xc0) === 0x80) start++; // skip a split character
      return buf.subarray(start).toString('utf8');
    } finally { await fh.close(); }
  }

  /** Ends every running task of a session and waits for the processes to exit. */
  async killSession(sessionId: string): Promise<void> {
    const running = this.list(sessionId).filter((t) => t.status === 'running');
    for (const t of running) t.stop('cancel');
    await Promise.all(running.map((t) => t.done));
  }

  /** Daemon stop: end every running task, except those that can outlive the daemon when background.keep_alive_on_exit. */
  async closeAll(): Promise<void> {
    this.closing = true;
    const keep = this.deps.config.current().background.keep_alive_on_exit;
    const ending = [...this.bySession.values()].flatMap((m) => [...m.values()])
      .filter((t) => t.status === 'running' && !(keep && t.canOutliveDaemon));
    for (const t of ending) t.stop('cancel');
    await Promise.all(ending.map((t) => t.done));
    await Promise.all([...this.pending]);
  }

  private readonly pending = new Set<Promise<unknown>>();

  /**
   * The object task.terminated journals: a Bash task's adds the tail of its output (`output_preview`, at most
   * TERMINATED_PREVIEW_BYTES; the transcript task record's `outputTail`, spec/clients.md B4), so a fold of the
   * journal shows what the live channel appended while it ran.
   */
  private async endedObject(task: LiveTask): Promise<{ object: TaskObject; output?: TaskOutput }> {
    const o = task.toObject();
    if (!(task instanceof BashTask)) return { object: o };
    const output = await this.output(task).catch((err: unknown) => {
      // The task still ends; its journaled object and its note only lack the output's tail.
      this.deps.log.warn({ err, task_id: task.spec.id }, 'task output tail unreadable');
      return undefined;
    });
    const tail = output?.tail;
    return { object: tail ? { ...o, output_preview: tail, output_bytes: Buffer.byteLength(tail) } : o, ...(output ? { output } : {}) };
  }

  /** The last TERMINATED_PREVIEW_BYTES of a task's output and the size of the whole. */
  private async output(task: LiveTask): Promise<TaskOutput> {
    const totalBytes = (await stat(task.spec.logFile).catch(() => ({ size: 0 }))).size;
    return { tail: await this.tail(task, TERMINATED_PREVIEW_BYTES), totalBytes };
  }

  private async announce(task: LiveTask): Promise<void> {
    const sid = task.spec.sessionId;
    await trackWork(this.deps, sid, task.spec.id, true);
    if (task instanceof BashTask) this.deps.bus.publish(sid, 'shell.started', { task_id: task.spec.id, command: task.spec.command });
    await this.deps.journal.append([{ stream: sid, type: 'task.started', payload: { task: task.toObject() } }]);
  }

  private async finished(task: LiveTask): Promise<void> {
    // A foreground result goes back in the tool call itself; the task is not kept.
    if (!task.background) { this.bySession.get(task.spec.sessionId)?.delete(task.spec.id); return; }
    const sid = task.spec.sessionId;
    if (task instanceof BashTask) this.deps.bus.publish(sid, 'shell.completed', { task_id: task.spec.id, exit_code: task.exitCode });
    const p = this.endedObject(task)
      .then(({ object, output }) => {
        // The note is queued before task.terminated is written, so whoever reacts to that event finds it (src/tasks/wakeups.ts).
        if (!this.closing) this.deps.notes.notify(task, output);
        return this.deps.journal.append([{ stream: sid, type: 'task.terminated', payload: { task: object } }]);
      })
      .then(() => trackWork(this.deps, sid, task.spec.id, false))
      .catch((err) => this.deps.log.warn(`task.terminated not journaled: ${String(err)}`));
    this.pending.add(p);
    await p;
    this.pending.delete(p);
  }
}

export type { TaskObject };
