import type { SessionIndex, SessionRecord } from '../../projections/session-index/session-index.ts';
import { logFailure, type Logger } from '../lib/logger.ts';
import type { EventJournal } from '../events/journal.ts';
import type { Clock } from '../lib/clock.ts';
import type { Ids } from '../lib/ids.ts';
import { setPendingInteraction, statusChangedEvent } from '../sessions/interaction.ts';
import type { LiveSessions } from '../sessions/live.ts';
import type { QuestionOutcome } from './types.ts';
import type { AnswerBody, DismissReason, QuestionDismissedPayload, QuestionEntry, QuestionItem } from '../../protocol/events/questions.ts';
import type { NewEvent } from '../../protocol/events/registry.ts';
import { known } from '../../protocol/events/known.ts';

/** Default lifetime of a pending question, like approvals (24 h); `new QuestionService(deps, {timeoutMs})` overrides it. */
export const QUESTION_TIMEOUT_MS = 24 * 60 * 60 * 1000;

interface Pending {
  item: QuestionItem;
  settle: (o: QuestionOutcome) => void;
  /** Releases the waiting call with an error (a dismissal that could not be journaled). */
  fail: (err: unknown) => void;
  timer?: NodeJS.Timeout;
  cleanup: () => void;
}

export interface AskRequest {
  agentId: string;
  turnId?: string;
  toolCallId: string;
  questions: Array<Omit<QuestionEntry, 'id' | 'options'> & { options: Array<{ label: string; description?: string }> }>;
}

export interface QuestionDeps {
  journal: EventJournal;
  sessions: SessionIndex;
  live: LiveSessions;
  clock: Clock;
  ids: Ids;
  log: Logger;
}

export type ResolveResult<T> = T | 'not_found' | 'already_resolved' | 'timed_out';

/**
 * AskUserQuestion interactions. Pending questions live in memory (the waiting tool call
 * holds a promise) and are journaled on the session stream, so the session index knows
 * which are open and a restart can dismiss them (reason daemon_restarted).
 */
export class QuestionService {
  private pending = new Map<string, Pending>();
  private closed = false;
  readonly timeoutMs: number;

  constructor(private readonly deps: QuestionDeps, opts: { timeoutMs?: number } = {}) {
    this.timeoutMs = opts.timeoutMs ?? QUESTION_TIMEOUT_MS;
  }

  /** Journals the question and waits for an answer, a dismissal, the timeout or the abort. */
  async ask(sessionId: string, req: AskRequest, signal?: AbortSignal): Promise<QuestionOutcome> {
    if (this.closed) return { kind: 'dismissed', reason: 'daemon_restarted' };
    if (signal?.aborted) return { kind: 'dismissed', reason: 'turn_aborted' };
    const item: QuestionItem = {
      question_id: this.deps.ids.next('qst'), session_id: sessionId, agent_id: req.agentId, ...(req.turnId ? { turn_id: req.turnId } : {}),
      tool_call_id: req.toolCallId, questions: req.questions.map(entryOf), created_at: this.deps.clock.now().toISOString(),
    };
    let settle!: (o: QuestionOutcome) => void;
    let fail!: (err: unknown) => void;
    const done = new Promise<QuestionOutcome>((resolve, reject) => [settle, fail] = [resolve, reject]);
    const onAbort = () => void this.dismissUnattended(item.question_id, 'turn_aborted');
    const p: Pending = { item, settle, fail, cleanup: () => signal?.removeEventListener('abort', onAbort) };
    this.pending.set(item.question_id, p);
    setPendingInteraction(this.deps, sessionId, 'question', this.pendingItems(sessionId).length > 0);
    try {
      await this.deps.journal.append([{ stream: sessionId, type: 'event.question.requested', payload: item }, statusChangedEvent(this.deps, sessionId)]);
    } catch (err) {
      // Not on disk: no client may see or answer it (it was held only so an answer racing the write finds it).
      this.pending.delete(item.question_id);
      p.cleanup();
      setPendingInteraction(this.deps, sessionId, 'question', this.pendingItems(sessionId).length > 0);
      throw err;
    }
    if (!this.pending.has(item.question_id)) return done;
    signal?.addEventListener('abort', onAbort, { once: true });
    p.timer = setTimeout(() => void this.dismissUnattended(item.question_id, 'timed_out'), this.timeoutMs);
    p.timer.unref();
    if (signal?.aborted) onAbort();
    return done;
  }

  /** Pending questions of a session, oldest first (expired ones are dismissed as timed out first). */
  async list(sessionId: string): Promise<QuestionItem[]> {
    for (const p of [...this.pending.values()]) {
      if (p.item.session_id === sessionId && this.expired(p.item)) await this.dismiss(p.item.question_id, 'timed_out');
    }
    return this.pendingItems(sessionId);
  }

  pendingItems(sessionId: string): QuestionItem[] {
    return [...this.pending.values()].filter((p) => p.item.session_id === sessionId).map((p) => p.item);
  }

  /** The pending question (route checks answers against it), or why there is none. */
  async lookup(sessionId: string, questionId: string): Promise<ResolveResult<QuestionItem>> {
    const p = this.pending.get(questionId);
    if (!p || p.item.session_id !== sessionId) return this.settledAs(sessionId, questionId);
    if (this.expired(p.item)) {
      await this.dismiss(questionId, 'timed_out');
      return 'timed_out';
    }
    return p.item;
  }

  async answer(sessionId: string, questionId: string, body: AnswerBody): Promise<ResolveResult<{ resolved_at: string }>> {
    const found = await this.lookup(sessionId, questionId);
    if (typeof found === 'string') return found;
    const at = await this.finish(questionId, (base, ts) => ({ type: 'event.question.answered', payload: { ...base, ...body, answered_at: ts } }), { kind: 'answered', item: found, body });
    return { resolved_at: at };
  }

  async dismissByUser(sessionId: string, questionId: string): Promise<ResolveResult<{ dismissed_at: string }>> {
    const found = await this.lookup(sessionId, questionId);
    if (typeof found === 'string') return found;
    return { dismissed_at: await this.dismiss(questionId, 'user') };
  }

  /**
   * Shutdown: waiting calls are released without journaling, so the next start
   * dismisses their questions as daemon_restarted (as for a crash).
   */
  close(): void {
    this.closed = true;
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.cleanup();
      p.settle({ kind: 'dismissed', reason: 'daemon_restarted' });
    }
    this.pending.clear();
  }

  /** The session's questions no tool call waits on any more (a restart, a takeover) journaled dismissed; how many. */
  async dismissLeftPending(s: SessionRecord): Promise<number> {
    if (!s.pending_questions?.length) return 0;
    const at = this.deps.clock.now().toISOString();
    await this.deps.journal.append(s.pending_questions.map((q) => ({
      stream: s.id, type: 'event.question.dismissed',
      payload: { ...q, reason: 'daemon_restarted', dismissed_at: at } satisfies QuestionDismissedPayload,
    })));
    return s.pending_questions.length;
  }

  private dismiss(questionId: string, reason: DismissReason, failCall = false): Promise<string> {
    return this.finish(questionId, (base, ts) => ({ type: 'event.question.dismissed', payload: { ...base, reason, dismissed_at: ts } }), { kind: 'dismissed', reason }, failCall);
  }

  /**
   * A dismissal no client waits for (the timeout, the turn's abort): a failed journal write is
   * logged and handed to the waiting tool call as its error, so the turn reports it.
   */
  private async dismissUnattended(questionId: string, reason: DismissReason): Promise<void> {
    await this.dismiss(questionId, reason, true).catch(logFailure(this.deps.log, `dismissing a question (${reason})`, { question_id: questionId }));
  }

  /** Journals the outcome, updates pending_interaction and releases the waiting tool call. */
  private async finish(
    questionId: string,
    eventOf: (base: { question_id: string; agent_id: string; tool_call_id: string }, ts: string) => NewEvent,
    outcome: QuestionOutcome,
    failCall = false,
  ): Promise<string> {
    const at = this.deps.clock.now().toISOString();
    const p = this.pending.get(questionId);
    if (!p) return at;
    this.pending.delete(questionId);
    clearTimeout(p.timer);
    p.cleanup();
    const sessionId = p.item.session_id;
    const base = { question_id: questionId, agent_id: p.item.agent_id, tool_call_id: p.item.tool_call_id };
    const last = this.pendingItems(sessionId).length === 0;
    if (last) setPendingInteraction(this.deps, sessionId, 'question', this.pendingItems(sessionId).length > 0);
    try {
      await this.deps.journal.append([{ stream: sessionId, ...eventOf(base, at) }, ...(last ? [statusChangedEvent(this.deps, sessionId)] : [])]);
    } catch (err) {
      if (failCall) p.fail(new Error(`the question could not be closed: ${(err as Error).message}`, { cause: err }));
      else p.settle(outcome);
      throw err;
    }
    p.settle(outcome);
    return at;
  }

  private expired(item: QuestionItem): boolean {
    return Date.parse(item.created_at) + this.timeoutMs <= this.deps.clock.now().getTime();
  }

  /**
   * Why a question that is not pending cannot be answered, from the journal: never asked (40405),
   * timed out (41002: the state table's "timed out" outlives the timeout, a restart included),
   * otherwise answered or dismissed (40902).
   */
  private async settledAs(sessionId: string, questionId: string): Promise<'not_found' | 'already_resolved' | 'timed_out'> {
    if (!this.deps.sessions.get(sessionId)) return 'not_found';
    let requested = false;
    for (const e of await this.deps.journal.readRange(sessionId, 1)) {
      const payload = e.payload as { question_id?: string; reason?: string };
      if (payload.question_id !== questionId) continue;
      const type = known(e).type;
      if (type === 'event.question.requested') requested = true;
      else if (requested && (type === 'event.question.dismissed' || type === 'event.question.answered')) {
        return type === 'event.question.dismissed' && payload.reason === 'timed_out' ? 'timed_out' : 'already_resolved';
      }
    }
    return requested ? 'already_resolved' : 'not_found';
  }
}

function entryOf(q: AskRequest['questions'][number], i: number): QuestionEntry {
  return {
    id: `q_${i}`, question: q.question, ...(q.header !== undefined ? { header: q.header } : {}),
    options: q.options.map((o, j) => ({ id: `o_${j}`, label: o.label, ...(o.description !== undefined ? { description: o.description } : {}) })),
    ...(q.multi_select !== undefined ? { multi_select: q.multi_select } : {}), allow_other: true,
  };
}
