import type { DocRole, SearchOp } from './documents.ts';
import { COLUMN_TYPES, emptyColumns, restoredColumns, Column, type ColumnName, type Columns, type Typed } from './columns.ts';
import { Postings, type PostingsState } from './postings.ts';
import { literal, type LiteralCorpus } from './query-literal.ts';
import { matchAll, matchAny, type TermsCorpus } from './query-terms.ts';
import { snippet } from './snippet.ts';
import { terms } from './tokenize.ts';
import { MemoryTexts, type TextStore } from './texts.ts';
import {
  BLOCK_BITS, DEFAULT_BUDGETS, MAX_QUERY_TERMS, type Found, type QueryError, type SearchBudgets, type SearchHit, type SearchPage, type SearchQuery,
} from './types.ts';

export { DEFAULT_BUDGETS, MAX_QUERY_TERMS, type QueryError, type SearchBudgets, type SearchHit, type SearchPage, type SearchQuery };

const ROLES: DocRole[] = ['user', 'assistant', 'title'];

/** 32-bit FNV-1a of a message id: undo finds a session's documents by it without keeping the ids. */
function keyHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h | 0;
}

export interface SessionMeta {
  id: string;
  workspace_id: string;
  title: string;
  titleTime: number;
  archived: boolean;
  titleDoc: number;
  /** The last document's turn, so the next one of the same turn shares its bytes. */
  lastTurn?: { id: string; at: number; len: number };
}

/** The journal position an index covers, per stream: the last applied event's seq and the stream's epoch. */
export type Position = [stream: string, seq: number, epoch: string];

/** Everything the index holds but its texts (src/search/snapshot.ts writes and reads it). */
export interface EngineState extends PostingsState {
  sessions: SessionMeta[];
  deletedWorkspaces: string[];
  agents: string[];
  positions: Position[];
  live: number;
  columns: Columns;
}

/**
 * The cross-session search index over message and title documents: the sessions and agents they belong to,
 * per-document columns (columns.ts), the postings of their terms (postings.ts), and their texts in a
 * TextStore (a file for the daemon's index). Queries are query-terms.ts and query-literal.ts. Removed documents
 * leave tombstones; queries skip them. Pure: the same ops give the same index, in a worker thread or in the server
 * process.
 */
export class SearchEngine implements TermsCorpus, LiteralCorpus {
  private sessions: SessionMeta[] = [];
  private readonly sessionIdx = new Map<string, number>();
  private readonly deletedWorkspaces = new Set<string>();
  private agents: string[] = [];
  private readonly agentIdx = new Map<string, number>();
  /** Interned terms and their documents (replaced only by `restore`). */
  postings = new Postings();
  private readonly positions = new Map<string, { seq: number; epoch: string }>();
  private cols = emptyColumns();
  /** Per block of 1,024 documents, their newest time (the literal walk's stop bound). */
  private readonly blockMax = new Column(new Float64Array(64));
  /** Live documents (read by the terms queries' idf). */
  live = 0;

  constructor(
    readonly budgets: SearchBudgets = DEFAULT_BUDGETS,
    readonly texts: TextStore = new MemoryTexts(),
    readonly now: () => number = () => performance.now(),
  ) {}

  /** An index from a snapshot's state over its texts. */
  static restore(state: EngineState, texts: TextStore, budgets?: SearchBudgets): SearchEngine {
    const e = new SearchEngine(budgets, texts);
    e.sessions = state.sessions;
    state.sessions.forEach((s, i) => e.sessionIdx.set(s.id, i));
    for (const w of state.deletedWorkspaces) e.deletedWorkspaces.add(w);
    e.agents = state.agents;
    state.agents.forEach((a, i) => e.agentIdx.set(a, i));
    e.postings = Postings.restore(state);
    for (const [stream, seq, epoch] of state.positions) e.positions.set(stream, { seq, epoch });
    e.live = state.live;
    e.cols = restoredColumns(state.columns);
    const times = state.columns.times;
    for (let d = 0; d < times.length; d++) e.noteTime(d, times[d]);
    return e;
  }

  /** The index's state for a snapshot (the fresh postings are merged first; the arrays are views, not copies). */
  state(): EngineState {
    const columns = {} as Record<ColumnName, Typed>;
    for (const name of Object.keys(COLUMN_TYPES) as ColumnName[]) columns[name] = this.cols[name].view;
    return {
      sessions: this.sessions, deletedWorkspaces: [...this.deletedWorkspaces], agents: this.agents, ...this.postings.state(),
      positions: [...this.positions].map(([s, p]) => [s, p.seq, p.epoch]), live: this.live, columns: columns as Columns,
    };
  }

  /** Live documents. */
  get documents(): number {
    return this.live;
  }

  /** Documents ever added (live or removed): ids 0 to docCount - 1. */
  get docCount(): number {
    return this.cols.textAt.length;
  }

  get times(): Float64Array {
    return this.cols.times.data;
  }

  /** What the index holds, in bytes by structure (the bench's breakdown; the texts are in their store). */
  stats(): Record<string, number> {
    let columns = 0;
    for (const c of Object.values(this.cols)) columns += c.data.byteLength;
    return {
      documents: this.docCount, live: this.live, sessions: this.sessions.length, ...this.postings.stats(),
      columns_bytes: columns, texts_bytes: this.texts.length,
    };
  }

  get sessionCount(): number {
    return this.sessions.length;
  }

  /** Records that `stream`'s events up to `seq` are applied; `seq` 0 forgets the stream (it was removed). */
  mark(stream: string, seq: number, epoch: string): void {
    if (seq > 0) this.positions.set(stream, { seq, epoch });
    else this.positions.delete(stream);
  }

  /** Merges the fresh postings into the frozen array and gives back spare capacity (call when a build is done). */
  trim(): void {
    this.postings.freeze();
    for (const c of Object.values(this.cols)) c.trim();
  }

  /** Merges the fresh postings into the frozen ones. */
  freeze(): void {
    this.postings.freeze();
  }

  apply(op: SearchOp): void {
    switch (op.op) {
      case 'workspace':
        if (op.deleted) this.deletedWorkspaces.add(op.workspace_id);
        else this.deletedWorkspaces.delete(op.workspace_id);
        return;
      case 'session': {
        const s = this.session(op.session_id);
        if (op.workspace_id !== undefined) s.workspace_id = op.workspace_id;
        if (op.archived !== undefined) s.archived = op.archived;
        if (op.title !== undefined && op.title !== s.title) {
          s.title = op.title;
          s.titleTime = op.time;
          if (s.titleDoc >= 0) this.drop(s.titleDoc);
          s.titleDoc = op.title ? this.add(this.sessionIdx.get(s.id)!, 'title', 'main', 'title', op.title, op.time, undefined) : -1;
        }
        return;
      }
      case 'add':
        this.add(this.sessionIdx.get(this.session(op.session_id).id)!, op.key, op.agent_id, op.role, op.text, op.time, op.turn);
        return;
      case 'drop-session': {
        // A deleted session (POST :delete): every document goes, its title too; it is never matched again.
        const si = this.sessionIdx.get(op.session_id);
        if (si === undefined) return;
        this.dropWhere(si, () => true);
        this.sessions[si].title = '';
        this.sessions[si].titleDoc = -1;
        return;
      }
      case 'remove': {
        const si = this.sessionIdx.get(op.session_id);
        if (si === undefined) return;
        const keys = new Set(op.keys.map(keyHash));
        const titleDoc = this.sessions[si].titleDoc;
        const hashes = this.cols.keys.data;
        this.dropWhere(si, (d) => keys.has(hashes[d]) && d !== titleDoc);
        return;
      }
    }
  }

  /** Drops the session's live documents that `which` picks (a walk of one column: undo and delete are rare). */
  private dropWhere(session: number, which: (doc: number) => boolean): void {
    const owner = this.cols.docSession.data;
    const alive = this.cols.alive.data;
    for (let d = 0, n = this.cols.docSession.length; d < n; d++) if (owner[d] === session && alive[d] && which(d)) this.drop(d);
  }

  private session(id: string): SessionMeta {
    let i = this.sessionIdx.get(id);
    if (i === undefined) {
      i = this.sessions.length;
      this.sessions.push({ id, workspace_id: '', title: '', titleTime: 0, archived: false, titleDoc: -1 });
      this.sessionIdx.set(id, i);
    }
    return this.sessions[i];
  }

  private noteTime(doc: number, time: number): void {
    const b = doc >> BLOCK_BITS;
    while (this.blockMax.length <= b) this.blockMax.push(-Infinity);
    if (time > this.blockMax.data[b]) this.blockMax.data[b] = time;
  }

  private agent(id: string): number {
    let a = this.agentIdx.get(id);
    if (a === undefined) {
      a = this.agents.length;
      this.agents.push(id);
      this.agentIdx.set(id, a);
    }
    return a;
  }

  private add(session: number, key: string, agent: string, role: DocRole, text: string, time: number, turn: string | undefined): number {
    const c = this.cols;
    const doc = c.textAt.length;
    const s = this.sessions[session];
    c.textAt.push(this.texts.append(text));
    c.alive.push(1);
    c.keys.push(keyHash(key));
    if (turn === undefined) {
      c.turnAt.push(-1);
      c.turnLen.push(0);
    } else {
      if (s.lastTurn?.id !== turn) {
        const at = this.texts.append(turn.slice(0, 64));
        s.lastTurn = { id: turn, at, len: this.texts.length - at };
      }
      c.turnAt.push(s.lastTurn.at);
      c.turnLen.push(s.lastTurn.len);
    }
    c.times.push(time);
    this.noteTime(doc, time);
    c.docSession.push(session);
    c.docAgent.push(this.agent(agent));
    c.docRole.push(ROLES.indexOf(role));
    this.postings.addDocument(doc, terms(text));
    this.live += 1;
    return doc;
  }

  private drop(doc: number): void {
    if (!this.cols.alive.data[doc]) return;
    this.cols.alive.data[doc] = 0;
    this.live -= 1;
  }

  /** Whether a live document passes the query's filters (archived sessions and deleted workspaces only when named). */
  private passes(doc: number, q: SearchQuery, container: number | undefined): boolean {
    const c = this.cols;
    if (!c.alive.data[doc]) return false;
    const s = c.docSession.data[doc];
    if (container !== undefined) {
      if (s !== container) return false;
    } else {
      const meta = this.sessions[s];
      if (meta.archived || this.deletedWorkspaces.has(meta.workspace_id)) return false;
    }
    if (q.agent_id !== undefined && this.agents[c.docAgent.data[doc]] !== q.agent_id) return false;
    if (q.role !== undefined && ROLES[c.docRole.data[doc]] !== q.role) return false;
    const t = c.times.data[doc];
    if (q.start_time !== undefined && t < q.start_time) return false;
    if (q.end_time !== undefined && t > q.end_time) return false;
    return true;
  }

  search(q: SearchQuery): SearchPage | QueryError {
    const started = this.now();
    let container: number | undefined;
    if (q.session_id !== undefined) {
      container = this.sessionIdx.get(q.session_id);
      if (container === undefined) return { hits: [], has_more: false };
    }
    const passes = (doc: number) => this.passes(doc, q, container);
    const time = this.cols.times.data;
    const newest = (a: { doc: number }, b: { doc: number }) => time[b.doc] - time[a.doc] || b.doc - a.doc;
    let needles: string[];
    let r: Found;
    if (q.mode === 'literal') {
      if (!q.query.length) return { error: 'empty_query' };
      needles = [q.query];
      r = literal(this, q.query, passes, started, q.offset + q.page_size + 1);
      r.found.sort(newest);
    } else {
      needles = terms(q.query);
      if (!needles.length) return { error: 'empty_query' };
      if (needles.length > MAX_QUERY_TERMS) return { error: 'too_many_terms' };
      r = (q.op === 'AND' ? matchAll : matchAny)(this, needles, passes, started);
      if (q.sort === 'time_desc') r.found.sort(newest);
      else if (q.sort === 'time_asc') r.found.sort((a, b) => time[a.doc] - time[b.doc] || a.doc - b.doc);
      else r.found.sort((a, b) => b.score - a.score || newest(a, b));
    }
    const page = r.found.slice(q.offset, q.offset + q.page_size);
    return {
      hits: page.map(({ doc, score }) => this.hit(doc, score, needles, q.mode === 'literal')),
      has_more: r.found.length > q.offset + q.page_size,
      ...(r.incomplete ? { incomplete: r.incomplete } : {}),
    };
  }

  /** Per block of 1,024 documents, the newest time of the documents up to the block's end. */
  newestUpTo(): Float64Array {
    const bound = new Float64Array(this.blockMax.length);
    for (let b = 0, m = -Infinity; b < bound.length; b++) bound[b] = m = Math.max(m, this.blockMax.data[b]);
    return bound;
  }

  /** Start of document `d`'s text in the store, and its end. */
  span(d: number): [number, number] {
    const at = this.cols.textAt.data;
    const end = d + 1 < this.cols.textAt.length ? at[d + 1] : this.texts.length;
    // A turn id stored right after the text is not part of it.
    const turn = this.cols.turnAt.data[d];
    return [at[d], turn > at[d] && turn < end ? turn : end];
  }

  /** The document whose bytes hold store offset `at` (offsets ascend with document ids). */
  docAt(at: number): number {
    const starts = this.cols.textAt.data;
    let lo = 0;
    let hi = this.cols.textAt.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid] <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private hit(doc: number, score: number, needles: string[], literalMode: boolean): SearchHit {
    const c = this.cols;
    const s = this.sessions[c.docSession.data[doc]];
    const [start, end] = this.span(doc);
    const text = this.texts.read(start, end);
    const turnAt = c.turnAt.data[doc];
    const turn = turnAt >= 0 ? this.texts.read(turnAt, turnAt + c.turnLen.data[doc]) : undefined;
    return {
      session_id: s.id, workspace_id: s.workspace_id, session_title: s.title, agent_id: this.agents[c.docAgent.data[doc]],
      role: ROLES[c.docRole.data[doc]], snippet: snippet(text, needles, literalMode), time: c.times.data[doc],
      ...(turn !== undefined ? { turn } : {}), score: Math.round(score * 10_000) / 10_000,
    };
  }
}
