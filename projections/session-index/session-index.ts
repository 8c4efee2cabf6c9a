import type { JournalEvent } from '../../journal/types.ts';
import { GLOBAL_STREAM, GUI_STREAM } from '../../journal/keys.ts';
import { known, type DurableType, type KnownEvent, type RememberedCall, type SessionState } from '../contract.ts';
import type { Projection, RecordWrite } from '../projection.ts';
import { undoOf } from '../undo.ts';
import { SortedList } from '../sorted-list.ts';
import { FIRST_PROMPT_TITLE as FIRST_PROMPT } from '../../protocol/events/session.ts';

/** A session as the index holds it; `foreign` ones come from another daemon's export. */
export interface SessionRecord extends SessionState {
  has_prompt: boolean;
  /** The main turn journaled as started and not yet ended (a restart ends it as interrupted). */
  active_turn?: { turn_id: string; prompt_id: string };
  foreign?: { server_id?: string; slot: string };
  /** Approvals requested and not resolved (a restart resolves them as cancelled). */
  pending_approvals?: { approval_id: string; agent_id: string; tool_call_id: string }[];
  /** Questions asked and not answered nor dismissed (a restart dismisses them). */
  pending_questions?: { question_id: string; agent_id: string; tool_call_id: string }[];
  /** Calls approved with `scope: session` (allowed again without asking). */
  session_rules?: RememberedCall[];
}

/** Side facts of a session (terminals opened or closed): not activity, they do not reorder lists. */
const SIDE_FACTS: ReadonlySet<string> = new Set<DurableType>(['terminal.opened', 'terminal.exited', 'terminal.closed']);

/** Whether an event counts as activity of the session (bumps `updated_at`). */
export function touchesSession(type: string): boolean {
  return !SIDE_FACTS.has(type);
}

/** Sort orders the lists offer. */
export type SessionSort = 'updated_desc' | 'updated_asc' | 'created_desc';

/**
 * The session index: every session's summary in memory, kept in two sorted
 * orders and counted per workspace, so a list page costs O(log n + page).
 */
export class SessionIndex implements Projection {
  readonly name = 'session-index';
  readonly version = 3;
  private byId = new Map<string, SessionRecord>();
  private byUpdated = new SortedList<SessionRecord>((s) => s.updated_at);
  private byCreated = new SortedList<SessionRecord>((s) => s.created_at);
  private perWorkspace = new Map<string, { all: number; archived: number }>();
  private children = new Map<string, SortedList<SessionRecord>>();

  reset(): void {
    this.byId.clear();
    this.byUpdated.clear();
    this.byCreated.clear();
    this.perWorkspace.clear();
    this.children.clear();
  }

  load(_key: string, value: unknown): void {
    this.upsert(value as SessionRecord);
  }

  apply(event: JournalEvent): RecordWrite[] {
    if (known(event).type === 'event.session.deleted') {
      // POST /sessions/{id}:delete: gone from every list and read (its stream is removed in the same batch).
      const id = (event.payload as { session_id: string }).session_id;
      if (!this.byId.has(id)) return [];
      this.drop(id);
      return [{ key: id, delete: true }];
    }
    if (event.stream === GLOBAL_STREAM || event.stream === GUI_STREAM) return [];
    const next = this.reduce(this.byId.get(event.stream), event);
    if (!next) return [];
    this.upsert(next);
    return [{ key: next.id, value: next }];
  }

  private reduce(cur: SessionRecord | undefined, event: JournalEvent): SessionRecord | undefined {
    const e = known(event);
    if (e.type === 'session.created') return { ...e.payload.session, has_prompt: Boolean(e.payload.session.last_prompt) };
    if (!cur) return undefined;
    if (e.type.startsWith('event.approval.') || e.type.startsWith('event.question.')) return pendingInteractions(cur, e);
    switch (e.type) {
      case 'session.profile_updated': {
        const p = e.payload;
        const next: SessionRecord = { ...cur, updated_at: e.ts };
        if (p.title !== undefined) {
          next.title = p.title;
          next.title_source = 'custom';
        }
        if (p.metadata) next.metadata = { ...cur.metadata, ...p.metadata, cwd: cur.cwd };
        if (p.agent_config) next.agent_config = { ...cur.agent_config, ...p.agent_config };
        return next;
      }
      case 'session.archived':
        return { ...cur, archived: true, archived_at: e.payload.archived_at };
      case 'session.restored': {
        const next = { ...cur, archived: false };
        delete next.archived_at;
        return next;
      }
      case 'goal.updated':
        return { ...cur, goal: e.payload.goal, updated_at: e.ts };
      case 'prompt.accepted': {
        // A follow-up turn's notes (source `task`) are not the user's prompt.
        if (e.payload.source === 'task') return undefined;
        const text = e.payload.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
        return { ...cur, last_prompt: text, has_prompt: true, updated_at: e.ts };
      }
      case 'turn.started': {
        const p = e.payload;
        return p.agent_id === 'main' ? { ...cur, active_turn: { turn_id: p.turn_id, prompt_id: p.prompt_id }, updated_at: e.ts } : undefined;
      }
      case 'turn.ended': {
        const p = e.payload;
        if (p.agent_id !== 'main') return undefined;
        const next: SessionRecord = { ...cur, last_turn_reason: p.reason, updated_at: e.ts };
        delete next.active_turn;
        return next;
      }
      case 'session.undone': {
        // `:undo` reconciles last_prompt with the prompts left (docs/compaction-undo.md).
        const undo = undoOf(e.payload);
        if (undo.agentId !== 'main') return undefined;
        const next: SessionRecord = { ...cur, updated_at: e.ts };
        if (undo.lastPrompt === null) delete next.last_prompt;
        else next.last_prompt = undo.lastPrompt;
        return next;
      }
      case 'session.runtime_bound':
        return { ...cur, runtime_id: e.payload.runtime_id };
      case 'session.title_generated': {
        // A custom title wins over generated ones.
        if (cur.title_source === 'custom') return undefined;
        return { ...cur, title: e.payload.title, title_source: e.payload.source === FIRST_PROMPT ? 'prompt' : 'generated', updated_at: e.ts };
      }
      default:
        return touched(cur, e);
    }
  }

  /** Adds or replaces a record in every order and count. */
  upsert(next: SessionRecord): void {
    const prev = this.byId.get(next.id);
    if (prev) this.unlink(prev);
    this.byId.set(next.id, next);
    this.byUpdated.insert(next);
    this.byCreated.insert(next);
    this.count(next, +1);
    if (next.parent_id) {
      const list = this.children.get(next.parent_id) ?? new SortedList<SessionRecord>((s) => s.updated_at);
      list.insert(next);
      this.children.set(next.parent_id, list);
    }
  }

  private unlink(prev: SessionRecord): void {
    this.byUpdated.remove(prev);
    this.byCreated.remove(prev);
    this.count(prev, -1);
    if (prev.parent_id) this.children.get(prev.parent_id)?.remove(prev);
  }

  /** Drops a record (foreign sessions that vanished from another daemon's export). */
  drop(id: string): void {
    const prev = this.byId.get(id);
    if (!prev) return;
    this.unlink(prev);
    this.byId.delete(id);
  }

  private count(s: SessionRecord, delta: number): void {
    const c = this.perWorkspace.get(s.workspace_id) ?? { all: 0, archived: 0 };
    c.all += delta;
    if (s.archived) c.archived += delta;
    this.perWorkspace.set(s.workspace_id, c);
  }

  get(id: string): SessionRecord | undefined {
    return this.byId.get(id);
  }

  get size(): number {
    return this.byId.size;
  }

  all(): IterableIterator<SessionRecord> {
    return this.byId.values();
  }

  /** Session counts of a workspace (all, and how many of those are archived). */
  countsFor(workspaceId: string): { all: number; archived: number } {
    return this.perWorkspace.get(workspaceId) ?? { all: 0, archived: 0 };
  }

  /** Children of a session, newest updated first, optionally from a cursor like `walk`. */
  *walkChildren(parentId: string, from?: { afterId?: string; reverseFromId?: string }): Generator<SessionRecord> {
    const list = this.children.get(parentId);
    if (!list) return;
    const anchorId = from?.afterId ?? from?.reverseFromId;
    if (!anchorId) return yield* list.walk('desc');
    const anchor = this.byId.get(anchorId);
    const i = anchor && anchor.parent_id === parentId ? list.indexOf(anchor) : -1;
    if (i < 0) return;
    yield* from?.afterId ? list.walk('desc', i - 1) : list.walk('asc', i + 1);
  }

  private list(sort: SessionSort): SortedList<SessionRecord> {
    return sort === 'created_desc' ? this.byCreated : this.byUpdated;
  }

  /**
   * Walks sessions in `sort` order, optionally starting just after `afterId`
   * (exclusive), or walking backwards from just before `beforeId`.
   */
  *walk(sort: SessionSort, from?: { afterId?: string; reverseFromId?: string }): Generator<SessionRecord> {
    const list = this.list(sort);
    const forward = sort === 'updated_asc' ? 'asc' : 'desc';
    const backward = forward === 'asc' ? 'desc' : 'asc';
    const step = forward === 'asc' ? 1 : -1;
    if (from?.afterId) {
      const anchor = this.byId.get(from.afterId);
      const i = anchor ? list.indexOf(anchor) : -1;
      if (i < 0) return;
      yield* list.walk(forward, i + step);
    } else if (from?.reverseFromId) {
      const anchor = this.byId.get(from.reverseFromId);
      const i = anchor ? list.indexOf(anchor) : -1;
      if (i < 0) return;
      yield* list.walk(backward, i - step);
    } else {
      yield* list.walk(forward);
    }
  }
}

/** An event that changes nothing of the record but its time: a new `updated_at`, or undefined when not newer. */
function touched(cur: SessionRecord, e: KnownEvent): SessionRecord | undefined {
  if (!touchesSession(e.type)) return undefined;
  return cur.updated_at < e.ts ? { ...cur, updated_at: e.ts } : undefined;
}

/** The approvals and questions waiting for an answer, and the calls an approval remembered for the session. */
function pendingInteractions(cur: SessionRecord, e: KnownEvent): SessionRecord | undefined {
  switch (e.type) {
    case 'event.approval.requested': {
      const a = e.payload;
      const open = { approval_id: a.approval_id, agent_id: a.agent_id, tool_call_id: a.tool_call_id };
      return { ...cur, pending_approvals: [...(cur.pending_approvals ?? []), open], updated_at: e.ts };
    }
    case 'event.approval.resolved': {
      const r = e.payload;
      const next: SessionRecord = { ...cur, pending_approvals: (cur.pending_approvals ?? []).filter((a) => a.approval_id !== r.approval_id), updated_at: e.ts };
      if (r.remember) next.session_rules = [...(cur.session_rules ?? []), r.remember];
      return next;
    }
    case 'event.question.requested': {
      const q = e.payload;
      const open = { question_id: q.question_id, agent_id: q.agent_id, tool_call_id: q.tool_call_id };
      return { ...cur, pending_questions: [...(cur.pending_questions ?? []), open], updated_at: e.ts };
    }
    case 'event.question.answered':
    case 'event.question.dismissed': {
      const id = e.payload.question_id;
      return { ...cur, pending_questions: (cur.pending_questions ?? []).filter((q) => q.question_id !== id), updated_at: e.ts };
    }
    default:
      return touched(cur, e);
  }
}
