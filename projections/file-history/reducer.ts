import type { JournalEvent } from '../../journal/types.ts';
import { commonEnds, textLines } from './line-ends.ts';
import { known } from '../contract.ts';
import type { StreamReducer } from '../projection.ts';

/**
 * The per-turn file history of a session (docs/file-history.md): for each main turn (by ordinal, 0 for
 * the first, as the transcript's `t<ordinal>`), the files Write and Edit changed during it, with their
 * content at the turn's start (before the first change) and at its end (after the last). Changes by
 * subagents count for the main turn running when they happened.
 */

/** A file's content at one end of a turn: absent (`exists: false`), known, or not kept (oversize). */
export interface Snapshot { exists: boolean; content?: string; oversize?: true; seq: number }
/** `stats`: the line counts of start -> end, computed on the first read and dropped when the end changes. */
export interface FileEntry { start: Snapshot; end: Snapshot; stats?: { additions: number; deletions: number } }
export interface FileHistoryState {
  /** Main turns seen, in order; the index is the ordinal. */
  turns: string[];
  /** Per ordinal: path -> its start and end. */
  files: Map<number, Map<string, FileEntry>>;
}

/** The turn id of a main agent's event (`turn.started`), undefined for a subagent's. */
export function mainTurn(e: JournalEvent): string | undefined {
  const p = e.payload as { agent_id?: string; turn_id?: string };
  return (p.agent_id ?? 'main') === 'main' ? p.turn_id : undefined;
}

export const fileHistoryReducer: StreamReducer<FileHistoryState> = {
  name: 'file-history',
  version: 2,
  init: () => ({ turns: [], files: new Map() }),
  apply(state, event) {
    const e = known(event);
    if (e.type === 'turn.started') {
      const id = mainTurn(event);
      if (id !== undefined && !state.turns.includes(id)) state.turns.push(id);
      return;
    }
    if (e.type !== 'file.changed') return;
    const p = e.payload;
    let ordinal = p.agent_id === 'main' && p.turn_id ? state.turns.indexOf(p.turn_id) : -1;
    if (ordinal < 0) ordinal = state.turns.length - 1;
    if (ordinal < 0) return;
    const files = state.files.get(ordinal) ?? new Map<string, FileEntry>();
    state.files.set(ordinal, files);
    const after: Snapshot = p.deleted ? { exists: false, seq: e.seq }
      : p.oversize ? { exists: true, oversize: true, seq: e.seq } : { exists: true, content: p.after ?? '', seq: e.seq };
    const cur = files.get(p.path);
    if (cur) {
      cur.end = after;
      delete cur.stats;
      return;
    }
    const start: Snapshot = !p.existed ? { exists: false, seq: e.seq }
      : p.oversize || (p.deleted && p.before === undefined) ? { exists: true, oversize: true, seq: e.seq } : { exists: true, content: p.before ?? '', seq: e.seq };
    files.set(p.path, { start, end: after });
  },
};

/** Lines added and removed from `a` to `b`: a line diff (LCS) of what differs between the common head and tail. */
export function lineChanges(a: string, b: string): { additions: number; deletions: number } {
  if (a === b) return { additions: 0, deletions: 0 };
  const x = textLines(a);
  const y = textLines(b);
  const { head, tail } = commonEnds(x, y);
  const xs = x.slice(head, x.length - tail);
  const ys = y.slice(head, y.length - tail);
  // Past 4 million cells the middle counts as all replaced (bounded work per read).
  if (xs.length * ys.length > 4_000_000) return { additions: ys.length, deletions: xs.length };
  let prev = new Uint32Array(ys.length + 1);
  let cur = new Uint32Array(ys.length + 1);
  for (let i = 1; i <= xs.length; i++) {
    for (let j = 1; j <= ys.length; j++) cur[j] = xs[i - 1] === ys[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    [prev, cur] = [cur, prev];
  }
  const common = prev[ys.length]!;
  return { additions: ys.length - common, deletions: xs.length - common };
}

export interface FileChange { path: string; status: 'added' | 'modified' | 'deleted'; additions: number; deletions: number; oversize?: true }

/** GET …/file-history/changes: the turn's changed files (a file back to its start content is left out), by path. */
export function changesOf(state: FileHistoryState, ordinal: number): { changes: FileChange[]; recorded: boolean } {
  if (ordinal >= state.turns.length) return { changes: [], recorded: false };
  const out: FileChange[] = [];
  for (const [path, f] of state.files.get(ordinal) ?? []) {
    // Created and removed within the turn: no change at its ends.
    if (!f.start.exists && !f.end.exists) continue;
    const status = !f.start.exists ? 'added' : !f.end.exists ? 'deleted' : 'modified';
    if (f.start.oversize || f.end.oversize) {
      out.push({ path, status, additions: 0, deletions: 0, oversize: true });
      continue;
    }
    if (status === 'modified' && f.start.content === f.end.content) continue;
    // The LCS diff runs once per entry, not on every read (the client asks on every turn render).
    f.stats ??= lineChanges(f.start.content ?? '', f.end.content ?? '');
    out.push({ path, status, ...f.stats });
  }
  return { changes: out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), recorded: true };
}

/** GET …/file-history/content: the file at the turn's start or end; null when it did not exist then or the turn did not change it. */
export function contentOf(state: FileHistoryState, ordinal: number, path: string, phase: 'start' | 'end') {
  const snap = state.files.get(ordinal)?.get(path)?.[phase];
  if (!snap?.exists) return { content: null };
  return { content: snap.oversize ? { version: snap.seq, oversize: true as const } : { version: snap.seq, content: snap.content ?? '' } };
}

/** The newest recorded snapshot of a path (the end of the last turn that changed it). */
function latest(state: FileHistoryState, path: string): Snapshot | undefined {
  let best: Snapshot | undefined;
  for (const files of state.files.values()) {
    const end = files.get(path)?.end;
    if (end && (!best || end.seq > best.seq)) best = end;
  }
  return best;
}

/** A path's newest recorded content, when it still existed then (what a deletion record carries as `before`). */
export function lastContentOf(state: FileHistoryState, path: string): { content?: string; oversize?: true } | undefined {
  const s = latest(state, path);
  if (!s?.exists) return undefined;
  return s.oversize ? { oversize: true } : { content: s.content ?? '' };
}

/**
 * The paths the history last saw existing, newest change first, at most `limit` (what a Bash command may have
 * removed: src/tools/file-history.ts checks them after each foreground command). Paths only: the view is cloned.
 */
export function existingFiles(state: FileHistoryState, limit: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  const ordinals = [...state.files.keys()].sort((a, b) => b - a);
  for (const o of ordinals) {
    const files = [...state.files.get(o)!].sort((a, b) => b[1].end.seq - a[1].end.seq);
    for (const [path, f] of files) {
      if (seen.has(path)) continue;
      seen.add(path);
      if (!f.end.exists) continue;
      out.push(path);
      if (out.length >= limit) return out;
    }
  }
  return out;
}
