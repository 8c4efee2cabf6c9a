import { isDeepStrictEqual } from 'node:util';
import type { EventType } from '../../protocol/events/registry.ts';

/** An event as both sides are compared: the recorded journal line or the replay's stored event. */
export interface ComparedEvent {
  seq: number;
  type: string;
  payload: unknown;
}

/**
 * Event types a replay does not reproduce, left out on both sides: the session's lifecycle and user actions
 * the replay does not drive (title, archive, runtime binding, undo, goals, steering and aborting queued
 * prompts, terminals). `session.created` is the replay's own session, created with the scratch workspace.
 */
export const NOT_COMPARED: ReadonlySet<string> = new Set<EventType>([
  'session.created', 'session.archived', 'session.restored', 'session.runtime_bound', 'session.title_generated', 'session.meta.updated',
  'session.undone', 'goal.updated', 'prompt.steered', 'prompt.aborted', 'terminal.opened', 'terminal.exited', 'terminal.closed',
]);

/** Payload fields that differ on every run whatever happens: times and measured durations. Dropped at any depth. */
export const IGNORED_FIELDS: ReadonlySet<string> = new Set([
  'ts', 'created_at', 'updated_at', 'started_at', 'ended_at', 'finished_at', 'resolved_at', 'answered_at', 'dismissed_at', 'expires_at', 'duration_ms', 'delay_ms',
  // The step's measured LLM timings (request build, first token, stream, consume: turn.step.completed).
  'llm_timing',
]);

/** Ids the daemon mints (`<prefix>_<ULID>`) and workspace ids (`wd_<slug>_<hash12>`), also inside strings. */
const MINTED_ID = /\b[a-z][a-z0-9]*_[0-9A-HJKMNP-TV-Z]{26}\b|\bwd_[a-z0-9-]*_[0-9a-f]{12}\b/g;

/**
 * Brings one side's events to a comparable form: the workspace root replaced by `<workspace>`, each minted id
 * by `<prefix>#n` numbered in order of first appearance (so references must still line up: the same turn,
 * message or approval is named the same on both sides), and the ignored fields dropped.
 */
export function normalize(events: readonly ComparedEvent[], root: string): ComparedEvent[] {
  const names = new Map<string, string>();
  const counts = new Map<string, number>();
  const rename = (id: string) => {
    let name = names.get(id);
    if (!name) {
      const prefix = id.slice(0, id.indexOf('_'));
      const n = (counts.get(prefix) ?? 0) + 1;
      counts.set(prefix, n);
      names.set(id, (name = `<${prefix}#${n}>`));
    }
    return name;
  };
  const text = (s: string) => (root ? s.split(root).join('<workspace>') : s).replace(MINTED_ID, rename);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return text(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) if (!IGNORED_FIELDS.has(k)) out[k] = walk(x);
      return out;
    }
    return v;
  };
  return events.filter((e) => !NOT_COMPARED.has(e.type)).map((e) => ({ seq: e.seq, type: e.type, payload: walk(e.payload) }));
}

export interface Divergence {
  /** Position in the compared sequence (0-based; NOT_COMPARED types are not counted). */
  index: number;
  /** The first differing field, as a dotted path (`type` when the event types differ). */
  field: string;
  /** The recorded event (its `seq` in the archive's journal), null when the replay produced more. */
  expected: ComparedEvent | null;
  /** The replayed event (its `seq` in the replay's journal), null when the replay stopped short. */
  got: ComparedEvent | null;
}

/** The first place the two normalized sequences differ, or null. */
export function firstDivergence(expected: readonly ComparedEvent[], got: readonly ComparedEvent[]): Divergence | null {
  const n = Math.max(expected.length, got.length);
  for (let i = 0; i < n; i++) {
    const a = expected[i];
    const b = got[i];
    if (!a || !b) return { index: i, field: a ? 'missing' : 'extra', expected: a ?? null, got: b ?? null };
    if (a.type !== b.type) return { index: i, field: 'type', expected: a, got: b };
    if (!isDeepStrictEqual(a.payload, b.payload)) return { index: i, field: `payload${firstPath(a.payload, b.payload)}`, expected: a, got: b };
  }
  return null;
}

function firstPath(a: unknown, b: unknown): string {
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      const x = (a as Record<string, unknown>)[k];
      const y = (b as Record<string, unknown>)[k];
      if (!isDeepStrictEqual(x, y)) return `${Array.isArray(a) ? `[${k}]` : `.${k}`}${firstPath(x, y)}`;
    }
  }
  return '';
}
