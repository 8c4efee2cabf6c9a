import type { DocRole, SearchOp } from './documents.ts';
import { fragmentMatches, literalFragments, terms } from './tokenize.ts';
import { MemoryTexts, scanBackwards, type TextStore } from './texts.ts';

/** Terms mode takes at most this many distinct terms (part-b "Search"). */
export const MAX_QUERY_TERMS = 32;

export interface SearchBudgets {
  /** Matching documents gathered before sorting; beyond it the page is `incomplete: candidate_cap`. */
  candidateCap: number;
  /** Posting entries walked per query (`postings_budget`). */
  postingsBudget: number;
  /** Wall time per query in ms (`deadline`). */
  deadlineMs: number;
}

export const DEFAULT_BUDGETS: SearchBudgets = { candidateCap: 20_000, postingsBudget: 4_000_000, deadlineMs: 400 };

export interface SearchQuery {
  query: string;
  mode: 'terms' | 'literal';
  op: 'AND' | 'OR';
  session_id?: string;
  agent_id?: string;
  role?: DocRole;
  start_time?: number;
  end_time?: number;
  sort: 'score' | 'time_desc' | 'time_asc';
  offset: number;
  page_size: number;
}

export interface SearchHit {
  session_id: string;
  workspace_id: string;
  session_title: string;
  agent_id: string;
  role: DocRole;
  snippet: string;
  time: number;
  turn?: string;
  score: number;
}

export interface SearchPage {
  hits: SearchHit[];
  has_more: boolean;
  incomplete?: 'candidate_cap' | 'postings_budget' | 'deadline';
}

export type QueryError = { error: 'empty_query' | 'too_many_terms' };

const ROLES: DocRole[] = ['user', 'assistant', 'title'];
const SNIPPET_BEFORE = 60;
const SNIPPET_AFTER = 140;
/** Documents per block of the literal walk's time bound. */
const BLOCK_BITS = 10;
const EMPTY = new Uint32Array(0);
/** Literal mode reads only the documents its fragments' terms point to, unless that is more postings than this. */
const PREFILTER_MAX = 2_000_000;

/** The per-document columns, by name and type (a snapshot writes them in this order). */
export const COLUMN_TYPES = {
  /** Offset of the document's text in the store; its text ends where the next document's starts (or a turn id does). */
  textAt: Float64Array,
  alive: Uint8Array,
  /** 32-bit hash of the message id (undo finds a session's documents by it). */
  keys: Int32Array,
  /** Offset of the document's turn id in the store, -1 when none (documents of one turn share the bytes). */
  turnAt: Float64Array,
  turnLen: Uint8Array,
  times: Float64Array,
  docSession: Int32Array,
  docAgent: Int32Array,
  docRole: Uint8Array,
} as const;
export type ColumnName = keyof typeof COLUMN_TYPES;
type Typed = Int32Array | Uint32Array | Float64Array | Uint8Array;
export type Columns = { [K in ColumnName]: InstanceType<(typeof COLUMN_TYPES)[K]> };

/** Arrays that grow past this many bytes are given at least ROOMY_BYTES of capacity (see `roomy`). */
const ROOMY_FROM = 1 << 20;
/** Above glibc's largest dynamic mmap threshold (32 MiB on 64-bit). */
const ROOMY_BYTES = 33 << 20;

/**
 * A typed array of at least `n` elements for an array that grows by copying. glibc serves an allocation above
 * its mmap threshold (128 KiB at start) with a mapping of its own, and raises the threshold (and the trim
 * threshold, to twice that) to the size of every such block freed, up to 32 MiB: the build's outgrown postings
 * and columns raised it to ~32 MiB, after which every thread's allocations came from malloc arenas that keep
 * up to ~64 MiB free each (docs/benchmarks.md "Session 7 — search memory"). Past ROOMY_FROM bytes the capacity
 * is at least ROOMY_BYTES, so freeing it never raises the threshold; pages past what is written are never
 * touched and cost no RSS (a fresh mapping reads as zeros).
 */
export function roomy<T extends Typed>(Type: new (n: number) => T, bytesPer: number, n: number): T {
  return new Type(n * bytesPer < ROOMY_FROM ? n : Math.max(n, Math.ceil(ROOMY_BYTES / bytesPer)));
}

/** A growable typed array (per-document columns stay compact at 500,000 documents). */
class Column<T extends Typed> {
  constructor(public data: T, public length = 0) {}
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = roomy(this.data.constructor as new (n: number) => T, this.data.BYTES_PER_ELEMENT, Math.max(1024, Math.ceil(this.data.length * 1.5)));
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }

  trim(): void {
    if (this.data.length > this.length) this.data = this.data.slice(0, this.length) as T;
  }

  get view(): T {
    return this.data.subarray(0, this.length) as T;
  }
}

/** 32-bit FNV-1a of a message id: undo finds a session's documents by it without keeping the ids. */
function keyHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h | 0;
}

/** Bytes of `v` as a LEB128 varint. */
function varintSize(v: number): number {
  return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
}

/** Writes `v` as a LEB128 varint at `out[at]`; the position after it. */
function putVarint(out: Uint8Array, at: number, v: number): number {
  while (v >= 0x80) {
    out[at++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  out[at++] = v;
  return at;
}

/** The last document id of a frozen slice (its gaps summed). */
function lastOf(bytes: Uint8Array, at: number, end: number): number {
  let doc = 0;
  while (at < end) {
    let byte = bytes[at++];
    let v = byte & 0x7f;
    for (let shift = 7; byte & 0x80; shift += 7) {
      byte = bytes[at++];
      v += (byte & 0x7f) * 2 ** shift;
    }
    doc += v;
  }
  return doc;
}

/**
 * A term's documents, ascending, read forward once: the frozen slice's gaps (LEB128 varints; the first is the
 * first id itself), then the fresh ids (all newer than the frozen ones).
 */
class Cursor {
  private doc = 0;
  private fi = 0;
  constructor(
    private readonly bytes: Uint8Array,
    private at: number,
    private readonly end: number,
    private readonly fresh: number[] | undefined,
    /** How many documents it gives in all. */
    readonly length: number,
  ) {}

  /** The next document id, -1 past the last. */
  next(): number {
    if (this.at < this.end) {
      const b = this.bytes;
      let at = this.at;
      let byte = b[at++];
      let v = byte & 0x7f;
      for (let shift = 7; byte & 0x80; shift += 7) {
        byte = b[at++];
        v += (byte & 0x7f) * 2 ** shift;
      }
      this.at = at;
      return (this.doc += v);
    }
    const f = this.fresh;
    return f !== undefined && this.fi < f.length ? f[this.fi++] : -1;
  }
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
export interface EngineState {
  sessions: SessionMeta[];
  deletedWorkspaces: string[];
  agents: string[];
  terms: string[];
  positions: Position[];
  live: number;
  /** Term t's postings are bytes postings[postingsStart[t], postingsStart[t + 1]) (n + 1 entries). */
  postingsStart: Uint32Array;
  /** Documents per term (n entries). */
  postingsCount: Uint32Array;
  /** Per term, its ascending document ids as LEB128 varint gaps. */
  postings: Uint8Array;
  columns: Columns;
}

/**
 * The cross-session search index: an inverted index (interned term -> ascending document ids) over message and
 * title documents, plus per-document columns; the texts live in a TextStore (a file for the daemon's index).
 * Postings are one Uint8Array for every term (a term's documents are a slice of it, the gaps between its ascending
 * ids as LEB128 varints) plus the postings added
 * since it was last rewritten, held per term in small arrays and merged in when they grow (or at a snapshot):
 * no per-term buffers that grow by copying. Removed documents leave tombstones; postings skip them.
 * Pure: the same ops give the same index, in a worker thread or in the server process.
 */
export class SearchEngine {
  private sessions: SessionMeta[] = [];
  private readonly sessionIdx = new Map<string, number>();
  private readonly deletedWorkspaces = new Set<string>();
  private agents: string[] = [];
  private readonly agentIdx = new Map<string, number>();
  private termList: string[] = [];
  private readonly termIdx = new Map<string, number>();
  /** Term t's frozen documents are varint gaps in the bytes postings[postingsStart[t], postingsStart[t + 1]). */
  private postingsStart: Uint32Array = new Uint32Array(1);
  /** Term t's frozen document count. */
  private postingsCount: Uint32Array = new Uint32Array(0);
  private postings: Uint8Array = new Uint8Array(0);
  /** The frozen postings' total count. */
  private frozenCount = 0;
  /** matchAny's decoded list, reused across queries (grown like the other arrays). */
  private scratch: Uint32Array = new Uint32Array(1024);
  private readonly fresh = new Map<number, number[]>();
  private freshCount = 0;
  private readonly positions = new Map<string, { seq: number; epoch: string }>();
  private readonly cols: { [K in ColumnName]: Column<Columns[K]> };
  /** Per block of 1,024 documents, their newest time (the literal walk's stop bound). */
  private readonly blockMax = new Column(new Float64Array(64));
  private live = 0;

  constructor(
    private readonly budgets: SearchBudgets = DEFAULT_BUDGETS,
    private readonly texts: TextStore = new MemoryTexts(),
    private readonly now: () => number = () => performance.now(),
  ) {
    const cols = {} as Record<ColumnName, Column<Typed>>;
    for (const [name, T] of Object.entries(COLUMN_TYPES)) cols[name as ColumnName] = new Column(new T(1024));
    this.cols = cols as unknown as SearchEngine['cols'];
  }

  /** An index from a snapshot's state over its texts. */
  static restore(state: EngineState, texts: TextStore, budgets?: SearchBudgets): SearchEngine {
    const e = new SearchEngine(budgets, texts);
    e.sessions = state.sessions;
    state.sessions.forEach((s, i) => e.sessionIdx.set(s.id, i));
    for (const w of state.deletedWorkspaces) e.deletedWorkspaces.add(w);
    e.agents = state.agents;
    state.agents.forEach((a, i) => e.agentIdx.set(a, i));
    e.termList = state.terms;
    state.terms.forEach((t, i) => e.termIdx.set(t, i));
    e.postingsStart = state.postingsStart;
    e.postingsCount = state.postingsCount;
    e.postings = state.postings;
    for (let t = 0; t < state.postingsCount.length; t++) e.frozenCount += state.postingsCount[t];
    for (const [stream, seq, epoch] of state.positions) e.positions.set(stream, { seq, epoch });
    e.live = state.live;
    for (const name of Object.keys(COLUMN_TYPES) as ColumnName[]) {
      const data = state.columns[name];
      (e.cols[name] as Column<Typed>) = new Column<Typed>(data, data.length);
    }
    const times = state.columns.times;
    for (let d = 0; d < times.length; d++) e.noteTime(d, times[d]);
    return e;
  }

  /** The index's state for a snapshot (the fresh postings are merged first; the arrays are views, not copies). */
  state(): EngineState {
    this.freeze();
    const columns = {} as Record<ColumnName, Typed>;
    for (const name of Object.keys(COLUMN_TYPES) as ColumnName[]) columns[name] = this.cols[name].view;
    return {
      sessions: this.sessions, deletedWorkspaces: [...this.deletedWorkspaces], agents: this.agents, terms: this.termList,
      positions: [...this.positions].map(([s, p]) => [s, p.seq, p.epoch]), live: this.live,
      postingsStart: this.postingsStart, postingsCount: this.postingsCount, postings: this.postings, columns: columns as Columns,
    };
  }

  get documents(): number {
    return this.live;
  }

  /** What the index holds, in bytes by structure (the bench's breakdown; the texts are in their store). */
  stats(): Record<string, number> {
    let columns = 0;
    for (const c of Object.values(this.cols)) columns += c.data.byteLength;
    return {
      documents: this.cols.textAt.length, live: this.live, sessions: this.sessions.length, terms: this.termList.length,
      postings: this.frozenCount + this.freshCount,
      postings_bytes: this.postings.byteLength + this.postingsStart.byteLength + this.postingsCount.byteLength,
      fresh_postings: this.freshCount, columns_bytes: columns, texts_bytes: this.texts.length,
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
    this.freeze();
    for (const c of Object.values(this.cols)) c.trim();
  }

  /** Rewrites the frozen postings with the fresh ones appended to each term's slice (coded as gaps from its last id). */
  freeze(): void {
    const n = this.termList.length;
    const old = this.postingsStart;
    const oldN = old.length - 1;
    if (!this.freshCount && oldN === n) return;
    const bytes = this.postings;
    const start = new Uint32Array(n + 1);
    const count = new Uint32Array(n);
    // Each fresh term's last frozen id (-1 when it had none): its first fresh id is coded as the gap from it.
    const last = new Float64Array(n).fill(-1);
    for (let t = 0; t < n; t++) {
      const from = t < oldN ? old[t] : 0;
      const to = t < oldN ? old[t + 1] : 0;
      let size = to - from;
      count[t] = t < oldN ? this.postingsCount[t] : 0;
      const f = this.fresh.get(t);
      if (f) {
        let prev = to > from ? lastOf(bytes, from, to) : 0;
        last[t] = prev;
        for (const d of f) {
          size += varintSize(d - prev);
          prev = d;
        }
        count[t] += f.length;
      }
      start[t + 1] = start[t] + size;
    }
    const next = roomy(Uint8Array, 1, start[n]).subarray(0, start[n]);
    for (let t = 0; t < n; t++) {
      let at = start[t];
      if (t < oldN && old[t + 1] > old[t]) {
        next.set(bytes.subarray(old[t], old[t + 1]), at);
        at += old[t + 1] - old[t];
      }
      const f = this.fresh.get(t);
      if (f) {
        let prev = last[t];
        for (const d of f) {
          at = putVarint(next, at, d - prev);
          prev = d;
        }
      }
    }
    this.postingsStart = start;
    this.postingsCount = count;
    this.postings = next;
    this.frozenCount += this.freshCount;
    this.fresh.clear();
    this.freshCount = 0;
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

  private add(session: number, key: string, agent: string, role: DocRole, text: string, time: number, turn: string | undefined): number {
    const c = this.cols;
    const doc = c.textAt.length;
    let a = this.agentIdx.get(agent);
    if (a === undefined) {
      a = this.agents.length;
      this.agents.push(agent);
      this.agentIdx.set(agent, a);
    }
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
    c.docAgent.push(a);
    c.docRole.push(ROLES.indexOf(role));
    for (const t of terms(text)) {
      let id = this.termIdx.get(t);
      if (id === undefined) {
        id = this.termList.length;
        this.termList.push(t);
        this.termIdx.set(t, id);
      }
      const f = this.fresh.get(id);
      if (f) f.push(doc);
      else this.fresh.set(id, [doc]);
      this.freshCount += 1;
    }
    // Merged when they reach a quarter of the frozen postings (so a build copies each posting a few times), at most 1M.
    if (this.freshCount >= Math.min(1 << 20, Math.max(1 << 16, this.frozenCount >> 2))) this.freeze();
    this.live += 1;
    return doc;
  }

  private drop(doc: number): void {
    if (!this.cols.alive.data[doc]) return;
    this.cols.alive.data[doc] = 0;
    this.live -= 1;
  }

  /** Term t's document count. */
  private df(t: number): number {
    return (t < this.postingsCount.length ? this.postingsCount[t] : 0) + (this.fresh.get(t)?.length ?? 0);
  }

  /** Term t's documents, ascending, as a cursor. */
  private cursor(t: number): Cursor {
    const start = this.postingsStart;
    const frozen = t + 1 < start.length;
    return new Cursor(this.postings, frozen ? start[t] : 0, frozen ? start[t + 1] : 0, this.fresh.get(t), this.df(t));
  }

  /** Term t's documents, ascending, decoded into the scratch array (valid until the next call). */
  private decode(t: number): Uint32Array {
    const c = this.cursor(t);
    if (this.scratch.length < c.length) this.scratch = roomy(Uint32Array, 4, Math.max(c.length, this.scratch.length * 2));
    const out = this.scratch.subarray(0, c.length);
    for (let i = 0; i < out.length; i++) out[i] = c.next();
    return out;
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
    let incomplete: SearchPage['incomplete'];
    let found: Array<{ doc: number; score: number }>;
    let needles: string[];
    const time = this.cols.times.data;
    if (q.mode === 'literal') {
      if (!q.query.length) return { error: 'empty_query' };
      needles = [q.query];
      const r = this.literal(q, container, started, q.offset + q.page_size + 1);
      found = r.found;
      incomplete = r.incomplete;
      found.sort((a, b) => time[b.doc] - time[a.doc] || b.doc - a.doc);
    } else {
      needles = terms(q.query);
      if (!needles.length) return { error: 'empty_query' };
      if (needles.length > MAX_QUERY_TERMS) return { error: 'too_many_terms' };
      const r = q.op === 'AND' ? this.matchAll(needles, q, container, started) : this.matchAny(needles, q, container, started);
      found = r.found;
      incomplete = r.incomplete;
      if (q.sort === 'time_desc') found.sort((a, b) => time[b.doc] - time[a.doc] || b.doc - a.doc);
      else if (q.sort === 'time_asc') found.sort((a, b) => time[a.doc] - time[b.doc] || a.doc - b.doc);
      else found.sort((a, b) => b.score - a.score || time[b.doc] - time[a.doc] || b.doc - a.doc);
    }
    const page = found.slice(q.offset, q.offset + q.page_size);
    return {
      hits: page.map(({ doc, score }) => this.hit(doc, score, needles, q.mode)),
      has_more: found.length > q.offset + q.page_size,
      ...(incomplete ? { incomplete } : {}),
    };
  }

  /** Start of document `d`'s text in the store, and its end. */
  private span(d: number): [number, number] {
    const at = this.cols.textAt.data;
    const end = d + 1 < this.cols.textAt.length ? at[d + 1] : this.texts.length;
    // A turn id stored right after the text is not part of it.
    const turn = this.cols.turnAt.data[d];
    return [at[d], turn > at[d] && turn < end ? turn : end];
  }

  /** The document whose bytes hold store offset `at` (offsets ascend with document ids). */
  private docAt(at: number): number {
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

  /**
   * Exact substring, newest first by the documents' times. The store is walked backwards (documents are
   * numbered as their events are applied, mostly in time order), one match per document, and the walk stops
   * once `enough` matches are at least as new as every document before the walk's position (per block of
   * 1,024 documents, their newest time): documents out of time order (a build from the journal walks it
   * stream by stream, an imported session) are still ranked by time.
   */
  private literal(q: SearchQuery, container: number | undefined, started: number, enough: number) {
    const found: Array<{ doc: number; score: number }> = [];
    let incomplete: SearchPage['incomplete'];
    const needle = Buffer.from(q.query, 'utf8');
    const times = this.cols.times.data;
    // Newest time of the documents [0, end of block b].
    const bound = new Float64Array(this.blockMax.length);
    for (let b = 0, m = -Infinity; b < bound.length; b++) bound[b] = m = Math.max(m, this.blockMax.data[b]);
    // The `enough` newest times found, as a min-heap: its root is the bar every earlier document must clear.
    const heap = new Float64Array(enough);
    let heapSize = 0;
    const keep = (t: number) => {
      if (heapSize < enough) {
        let i = heapSize++;
        while (i > 0 && heap[(i - 1) >> 1] > t) {
          heap[i] = heap[(i - 1) >> 1];
          i = (i - 1) >> 1;
        }
        heap[i] = t;
      } else if (t > heap[0]) {
        let i = 0;
        for (;;) {
          const l = 2 * i + 1;
          if (l >= enough) break;
          const c = l + 1 < enough && heap[l + 1] < heap[l] ? l + 1 : l;
          if (heap[c] >= t) break;
          heap[i] = heap[c];
          i = c;
        }
        heap[i] = t;
      }
    };
    const settled = (doc: number) => heapSize === enough && doc > 0 && heap[0] >= bound[(doc - 1) >> BLOCK_BITS];
    let steps = 0;
    if (!this.cols.textAt.length) return { found };
    const candidates = this.literalCandidates(q.query, started);
    if (candidates === 'deadline') return { found, incomplete: 'deadline' as const };
    if (candidates) {
      // Newest documents first (mostly time order), each read and checked, until the page is settled.
      for (let i = candidates.length - 1; i >= 0; i--) {
        const d = candidates[i];
        if ((++steps & 255) === 0 && this.now() - started >= this.budgets.deadlineMs) {
          incomplete = 'deadline';
          break;
        }
        if (!this.passes(d, q, container)) continue;
        const [start, end] = this.span(d);
        if (end - start < needle.length || this.texts.view(start, end - start).indexOf(needle) < 0) continue;
        found.push({ doc: d, score: 1 });
        keep(times[d]);
        if (settled(d)) break;
        if (found.length >= this.budgets.candidateCap) {
          incomplete = 'candidate_cap';
          break;
        }
      }
      if (!incomplete && this.now() - started >= this.budgets.deadlineMs) incomplete = 'deadline';
      return { found, incomplete };
    }
    // No fragment to go by (or too common ones): every match in the store, last bytes first.
    scanBackwards(this.texts, needle, (at) => {
      const d = this.docAt(at);
      const [start, end] = this.span(d);
      let next = at - 1;
      if (at + needle.length <= end) {
        if (this.passes(d, q, container)) {
          found.push({ doc: d, score: 1 });
          keep(times[d]);
          if (settled(d)) return -1;
          if (found.length >= this.budgets.candidateCap) {
            incomplete = 'candidate_cap';
            return -1;
          }
        }
        next = start - needle.length;
        if (next < 0) return -1;
      }
      if ((++steps & 1023) === 0 && this.now() - started >= this.budgets.deadlineMs) {
        incomplete = 'deadline';
        return -1;
      }
      return next;
    }, () => {
      if (this.now() - started < this.budgets.deadlineMs) return false;
      incomplete = 'deadline';
      return true;
    });
    // A deadline set below one scan's time still cuts it (the checks above run every 1,024 matches and per chunk).
    if (!incomplete && this.now() - started >= this.budgets.deadlineMs) incomplete = 'deadline';
    return { found, incomplete };
  }

  /**
   * The documents (ascending) holding the terms the needle's fragments point to, from the one or two cheapest
   * fragments; undefined when the needle has none, or even the cheapest walks more than PREFILTER_MAX postings
   * (then the store is scanned); 'deadline' when the query's time ran out while they were gathered (the walk over
   * every term for a fragment that is not a whole word, the marking of their postings: checked every 1,024 steps).
   */
  private literalCandidates(needle: string, started: number): Uint32Array | undefined | 'deadline' {
    const fragments = literalFragments(needle);
    if (!fragments.length) return undefined;
    const df = (t: number) => this.df(t);
    // The clock is read once per 1,024 units of work (a term compared, a posting marked).
    let work = 0;
    let nextCheck = 1024;
    const late = (cost = 1) => {
      work += cost;
      if (work < nextCheck) return false;
      nextCheck = work + 1024;
      return this.now() - started >= this.budgets.deadlineMs;
    };
    const sets: Array<{ ids: number[]; total: number }> = [];
    for (const f of fragments) {
      const ids: number[] = [];
      let total = 0;
      if (f.kind === 'exact') {
        const t = this.termIdx.get(f.text);
        if (t !== undefined) {
          ids.push(t);
          total = df(t);
        }
      } else {
        const list = this.termList;
        for (let t = 0; t < list.length; t++) {
          if (late()) return 'deadline';
          if (fragmentMatches(f, list[t])) {
            ids.push(t);
            total += df(t);
          }
        }
      }
      sets.push({ ids, total });
    }
    sets.sort((a, b) => a.total - b.total);
    if (sets[0].total === 0) return EMPTY;
    const limit = Math.min(PREFILTER_MAX, this.budgets.postingsBudget);
    if (sets[0].total > limit) return undefined;
    const used = sets.length > 1 && sets[1].total <= limit ? sets.slice(0, 2) : sets.slice(0, 1);
    const n = this.cols.textAt.length;
    const mark = new Uint8Array(n);
    for (let k = 0; k < used.length; k++) {
      for (const t of used[k].ids) {
        const c = this.cursor(t);
        if (late(c.length)) return 'deadline';
        for (let d = c.next(); d >= 0; d = c.next()) if (mark[d] === k) mark[d] = k + 1;
      }
    }
    let count = 0;
    for (let d = 0; d < n; d++) if (mark[d] === used.length) count += 1;
    const out = new Uint32Array(count);
    for (let d = 0, i = 0; d < n; d++) if (mark[d] === used.length) out[i++] = d;
    return out;
  }

  private idf(df: number): number {
    return Math.log(1 + (this.live + 1) / (df + 0.5));
  }

  private matchAll(needles: string[], q: SearchQuery, container: number | undefined, started: number) {
    const ids = needles.map((t) => this.termIdx.get(t));
    const found: Array<{ doc: number; score: number }> = [];
    if (ids.some((t) => t === undefined || !this.df(t))) return { found };
    const sorted = (ids as number[]).map((t) => this.cursor(t)).sort((a, b) => a.length - b.length);
    const score = sorted.reduce((n, c) => n + this.idf(c.length), 0);
    // The other lists' current ids (-1 before their first).
    const heads = sorted.map(() => -1);
    let walked = 0;
    const [first, ...rest] = sorted;
    outer: for (let doc = first.next(); doc >= 0; doc = first.next()) {
      walked += 1;
      if (walked > this.budgets.postingsBudget) return { found, incomplete: 'postings_budget' as const };
      if ((walked & 4095) === 0 && this.now() - started >= this.budgets.deadlineMs) return { found, incomplete: 'deadline' as const };
      for (let k = 0; k < rest.length; k++) {
        // Read forward to the first id >= doc (gaps have no random access); counted as the galloping search
        // over an array it replaces would be: log2 of the distance.
        let h = heads[k + 1];
        let skipped = 0;
        while (h < doc) {
          h = rest[k].next();
          skipped += 1;
          if (h < 0) break outer;
        }
        heads[k + 1] = h;
        walked += Math.max(1, Math.ceil(Math.log2(skipped + 1)));
        if (h !== doc) continue outer;
      }
      if (!this.passes(doc, q, container)) continue;
      found.push({ doc, score });
      if (found.length >= this.budgets.candidateCap) return { found, incomplete: 'candidate_cap' as const };
    }
    return { found };
  }

  private matchAny(needles: string[], q: SearchQuery, container: number | undefined, started: number) {
    const scores = new Map<number, number>();
    let walked = 0;
    let incomplete: SearchPage['incomplete'];
    // Rarest terms first: under a budget the most telling terms are the ones walked.
    const ids = needles.map((t) => this.termIdx.get(t)).filter((t): t is number => t !== undefined && this.df(t) > 0)
      .sort((a, b) => this.df(a) - this.df(b));
    scan: for (const t of ids) {
      const w = this.idf(this.df(t));
      // Newest first: decoded (forward) into the scratch array, then walked backwards.
      const l = this.decode(t);
      for (let i = l.length - 1; i >= 0; i--) {
        walked += 1;
        if (walked > this.budgets.postingsBudget) {
          incomplete = 'postings_budget';
          break scan;
        }
        if ((walked & 4095) === 0 && this.now() - started >= this.budgets.deadlineMs) {
          incomplete = 'deadline';
          break scan;
        }
        const doc = l[i];
        const prev = scores.get(doc);
        if (prev !== undefined) {
          scores.set(doc, prev + w);
          continue;
        }
        if (scores.size >= this.budgets.candidateCap) {
          incomplete = 'candidate_cap';
          continue;
        }
        if (this.passes(doc, q, container)) scores.set(doc, w);
      }
    }
    return { found: [...scores].map(([doc, score]) => ({ doc, score })), incomplete };
  }

  private hit(doc: number, score: number, needles: string[], mode: SearchQuery['mode']): SearchHit {
    const c = this.cols;
    const s = this.sessions[c.docSession.data[doc]];
    const [start, end] = this.span(doc);
    const text = this.texts.read(start, end);
    const turnAt = c.turnAt.data[doc];
    const turn = turnAt >= 0 ? this.texts.read(turnAt, turnAt + c.turnLen.data[doc]) : undefined;
    return {
      session_id: s.id, workspace_id: s.workspace_id, session_title: s.title, agent_id: this.agents[c.docAgent.data[doc]],
      role: ROLES[c.docRole.data[doc]], snippet: snippet(text, needles, mode), time: c.times.data[doc],
      ...(turn !== undefined ? { turn } : {}), score: Math.round(score * 10_000) / 10_000,
    };
  }
}

/** The text around the first match, whole when short; `…` marks what was cut. */
export function snippet(text: string, needles: string[], mode: SearchQuery['mode']): string {
  const hay = mode === 'literal' ? text : text.toLowerCase();
  let at = -1;
  for (const n of needles) {
    const i = hay.indexOf(n);
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  if (at < 0) at = 0;
  const from = Math.max(0, at - SNIPPET_BEFORE);
  const to = Math.min(text.length, at + SNIPPET_AFTER);
  return `${from > 0 ? '…' : ''}${text.slice(from, to).replace(/\s+/g, ' ')}${to < text.length ? '…' : ''}`;
}
