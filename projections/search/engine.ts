import type { DocRole, SearchOp } from './documents.ts';
import { terms } from './tokenize.ts';

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

/** A growable typed array (postings and per-document columns stay compact at 500,000 documents). */
class Column<T extends Int32Array | Float64Array | Uint8Array> {
  constructor(public data: T, public length = 0) {}
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new (this.data.constructor as new (n: number) => T)(Math.max(4, Math.ceil(this.data.length * 1.5)));
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }

  /** Drops the spare capacity (after a build, most postings lists stop growing). */
  trim(): void {
    if (this.data.length > this.length) this.data = this.data.slice(0, this.length) as T;
  }
}

/**
 * UTF-8 bytes of every document text (and turn id) end to end, off the JS heap: the index's bulk does not
 * grow the garbage-collected heap, and a literal search is one `lastIndexOf` walk over the bytes.
 */
class Arena {
  buf = Buffer.allocUnsafe(1 << 16);
  length = 0;

  append(text: string): number {
    const need = Buffer.byteLength(text, 'utf8');
    if (this.length + need > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(this.length + need, Math.ceil(this.buf.length * 1.5)));
      this.buf.copy(next, 0, 0, this.length);
      this.buf = next;
    }
    const at = this.length;
    this.length += this.buf.write(text, at, 'utf8');
    return at;
  }

  text(at: number, end: number): string {
    return this.buf.toString('utf8', at, end);
  }

  trim(): void {
    if (this.buf.length > this.length) this.buf = Buffer.from(this.buf.subarray(0, this.length));
  }
}

/** 32-bit FNV-1a of a message id: undo finds a session's documents by it without keeping the ids. */
function keyHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h | 0;
}

interface SessionMeta {
  id: string;
  workspace_id: string;
  title: string;
  titleTime: number;
  archived: boolean;
  /** Documents of the session (title document included), ascending. */
  docs: number[];
  titleDoc: number;
  /** The last document's turn, so the next one of the same turn shares its bytes. */
  lastTurn?: { id: string; at: number; len: number };
}

/**
 * The cross-session search index: an inverted index (term -> ascending document ids) over message and title
 * documents, plus per-document columns. Removed documents leave tombstones (their text is dropped); postings
 * skip them. Pure: the same ops give the same index, in a worker thread or in the server process.
 */
export class SearchEngine {
  private readonly sessions: SessionMeta[] = [];
  private readonly sessionIdx = new Map<string, number>();
  private readonly deletedWorkspaces = new Set<string>();
  private readonly agents: string[] = [];
  private readonly agentIdx = new Map<string, number>();
  private readonly postings = new Map<string, Column<Int32Array>>();
  private readonly arena = new Arena();
  /** Per document: its text is arena[textAt, textAt[d+1]) (the next document's start, or the arena's end). */
  private readonly textAt = new Column(new Int32Array(1024));
  private readonly alive = new Column(new Uint8Array(1024));
  private readonly keys = new Column(new Int32Array(1024));
  /** Per document: its turn id in the arena, -1 when none (documents of one turn share the bytes). */
  private readonly turnAt = new Column(new Int32Array(1024));
  private readonly turnLen = new Column(new Uint8Array(1024));
  private readonly times = new Column(new Float64Array(1024));
  private readonly docSession = new Column(new Int32Array(1024));
  private readonly docAgent = new Column(new Int32Array(1024));
  private readonly docRole = new Column(new Uint8Array(1024));
  private live = 0;

  constructor(private readonly budgets: SearchBudgets = DEFAULT_BUDGETS, private readonly now: () => number = () => performance.now()) {}

  get documents(): number {
    return this.live;
  }

  get sessionCount(): number {
    return this.sessions.length;
  }

  /** Gives back the spare capacity of every column and postings list (call when a build is done). */
  trim(): void {
    for (const p of this.postings.values()) p.trim();
    for (const c of [this.textAt, this.alive, this.keys, this.turnAt, this.turnLen, this.times, this.docSession, this.docAgent, this.docRole]) c.trim();
    this.arena.trim();
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
        const s = this.sessions[this.sessionIdx.get(op.session_id) ?? -1];
        if (!s) return;
        for (const d of s.docs) if (this.alive.data[d]) this.drop(d);
        s.title = '';
        s.titleDoc = -1;
        return;
      }
      case 'remove': {
        const s = this.sessions[this.sessionIdx.get(op.session_id) ?? -1];
        if (!s) return;
        const keys = new Set(op.keys.map(keyHash));
        for (const d of s.docs) if (this.alive.data[d] && keys.has(this.keys.data[d]) && d !== s.titleDoc) this.drop(d);
        return;
      }
    }
  }

  private session(id: string): SessionMeta {
    let i = this.sessionIdx.get(id);
    if (i === undefined) {
      i = this.sessions.length;
      this.sessions.push({ id, workspace_id: '', title: '', titleTime: 0, archived: false, docs: [], titleDoc: -1 });
      this.sessionIdx.set(id, i);
    }
    return this.sessions[i];
  }

  private add(session: number, key: string, agent: string, role: DocRole, text: string, time: number, turn: string | undefined): number {
    const doc = this.textAt.length;
    let a = this.agentIdx.get(agent);
    if (a === undefined) {
      a = this.agents.length;
      this.agents.push(agent);
      this.agentIdx.set(agent, a);
    }
    const s = this.sessions[session];
    this.textAt.push(this.arena.append(text));
    this.alive.push(1);
    this.keys.push(keyHash(key));
    if (turn === undefined) {
      this.turnAt.push(-1);
      this.turnLen.push(0);
    } else {
      if (s.lastTurn?.id !== turn) {
        const at = this.arena.append(turn.slice(0, 64));
        s.lastTurn = { id: turn, at, len: this.arena.length - at };
      }
      this.turnAt.push(s.lastTurn.at);
      this.turnLen.push(s.lastTurn.len);
    }
    this.times.push(time);
    this.docSession.push(session);
    this.docAgent.push(a);
    this.docRole.push(ROLES.indexOf(role));
    s.docs.push(doc);
    for (const t of terms(text)) {
      let p = this.postings.get(t);
      if (!p) this.postings.set(t, (p = new Column(new Int32Array(2))));
      p.push(doc);
    }
    this.live += 1;
    return doc;
  }

  private drop(doc: number): void {
    if (!this.alive.data[doc]) return;
    this.alive.data[doc] = 0;
    this.live -= 1;
  }

  /** Whether a live document passes the query's filters (archived sessions and deleted workspaces only when named). */
  private passes(doc: number, q: SearchQuery, container: number | undefined): boolean {
    if (!this.alive.data[doc]) return false;
    const s = this.docSession.data[doc];
    if (container !== undefined) {
      if (s !== container) return false;
    } else {
      const meta = this.sessions[s];
      if (meta.archived || this.deletedWorkspaces.has(meta.workspace_id)) return false;
    }
    if (q.agent_id !== undefined && this.agents[this.docAgent.data[doc]] !== q.agent_id) return false;
    if (q.role !== undefined && ROLES[this.docRole.data[doc]] !== q.role) return false;
    const t = this.times.data[doc];
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
    if (q.mode === 'literal') {
      if (!q.query.length) return { error: 'empty_query' };
      needles = [q.query];
      // Newest first is commit order (documents are numbered as their events commit): the walk stops one past the page.
      const r = this.literal(q, container, started, q.offset + q.page_size + 1);
      found = r.found;
      incomplete = r.incomplete;
    } else {
      needles = terms(q.query);
      if (!needles.length) return { error: 'empty_query' };
      if (needles.length > MAX_QUERY_TERMS) return { error: 'too_many_terms' };
      const r = q.op === 'AND' ? this.matchAll(needles, q, container, started) : this.matchAny(needles, q, container, started);
      found = r.found;
      incomplete = r.incomplete;
      const time = this.times.data;
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

  /** Start of document `d`'s text in the arena, and its end. */
  private span(d: number): [number, number] {
    const end = d + 1 < this.textAt.length ? this.textAt.data[d + 1] : this.arena.length;
    // A turn id appended right after the text is not part of it.
    const turn = this.turnAt.data[d];
    return [this.textAt.data[d], turn > this.textAt.data[d] && turn < end ? turn : end];
  }

  /** The document whose bytes hold arena offset `at` (offsets ascend with document ids). */
  private docAt(at: number): number {
    let lo = 0;
    let hi = this.textAt.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.textAt.data[mid] <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Exact substring, newest documents first: `lastIndexOf` over the arena, one match per document. */
  private literal(q: SearchQuery, container: number | undefined, started: number, enough: number) {
    const found: Array<{ doc: number; score: number }> = [];
    const needle = Buffer.from(q.query, 'utf8');
    const bytes = this.arena.buf.subarray(0, this.arena.length);
    let from = bytes.length - needle.length;
    let steps = 0;
    while (from >= 0) {
      const at = bytes.lastIndexOf(needle, from);
      if (at < 0) break;
      const d = this.docAt(at);
      const [start, end] = this.span(d);
      if (at + needle.length <= end && this.passes(d, q, container)) {
        found.push({ doc: d, score: 1 });
        if (found.length >= enough) return { found };
        if (found.length >= this.budgets.candidateCap) return { found, incomplete: 'candidate_cap' as const };
      }
      from = at + needle.length <= end ? start - needle.length : at - 1;
      if ((++steps & 1023) === 0 && this.now() - started >= this.budgets.deadlineMs) return { found, incomplete: 'deadline' as const };
    }
    // A deadline set below one scan's time still cuts it (the check above runs every 1,024 matches).
    if (this.now() - started >= this.budgets.deadlineMs) return { found, incomplete: 'deadline' as const };
    return { found };
  }

  private idf(df: number): number {
    return Math.log(1 + (this.live + 1) / (df + 0.5));
  }

  private matchAll(needles: string[], q: SearchQuery, container: number | undefined, started: number) {
    const lists = needles.map((t) => this.postings.get(t));
    const found: Array<{ doc: number; score: number }> = [];
    if (lists.some((l) => !l)) return { found };
    const sorted = (lists as Column<Int32Array>[]).sort((a, b) => a.length - b.length);
    const score = sorted.reduce((n, l) => n + this.idf(l.length), 0);
    const cursors = sorted.map(() => 0);
    let walked = 0;
    const [first, ...rest] = sorted;
    outer: for (let i = 0; i < first.length; i++) {
      const doc = first.data[i];
      walked += 1;
      if (walked > this.budgets.postingsBudget) return { found, incomplete: 'postings_budget' as const };
      if ((walked & 4095) === 0 && this.now() - started >= this.budgets.deadlineMs) return { found, incomplete: 'deadline' as const };
      for (let k = 0; k < rest.length; k++) {
        const l = rest[k];
        // Galloping search forward from the cursor: postings are ascending.
        let lo = cursors[k + 1];
        let step = 1;
        while (lo + step < l.length && l.data[lo + step] < doc) {
          lo += step;
          step *= 2;
        }
        let hi = Math.min(lo + step, l.length);
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (l.data[mid] < doc) lo = mid + 1;
          else hi = mid;
        }
        walked += Math.ceil(Math.log2(step + 1));
        cursors[k + 1] = lo;
        if (lo >= l.length) break outer;
        if (l.data[lo] !== doc) continue outer;
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
    const lists = needles.map((t) => this.postings.get(t)).filter((l): l is Column<Int32Array> => !!l).sort((a, b) => a.length - b.length);
    scan: for (const l of lists) {
      const w = this.idf(l.length);
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
        const doc = l.data[i];
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
    const s = this.sessions[this.docSession.data[doc]];
    const [start, end] = this.span(doc);
    const text = this.arena.text(start, end);
    const turn = this.turnAt.data[doc] >= 0 ? this.arena.text(this.turnAt.data[doc], this.turnAt.data[doc] + this.turnLen.data[doc]) : undefined;
    return {
      session_id: s.id, workspace_id: s.workspace_id, session_title: s.title, agent_id: this.agents[this.docAgent.data[doc]],
      role: ROLES[this.docRole.data[doc]], snippet: snippet(text, needles, mode), time: this.times.data[doc],
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
