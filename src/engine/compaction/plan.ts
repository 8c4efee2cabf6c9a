import type { ContentPart, Message } from '../../../protocol/events/turns.ts';
import { CHARS_PER_TOKEN, messageTokens } from './budget.ts';

/** A tool result kept after a compaction but cut to `kept_chars` (journaled on compaction.completed, replayed the same way). */
export interface Truncation { message_id: string; tool_use_id: string; kept_chars: number }

/** What a compaction replaces: the first `replaced` messages go into the summary; the rest stay, `truncated` cut. */
export interface CompactionPlan { replaced: number; truncated: Truncation[] }

export interface KeepPolicy {
  /** Tokens of recent history kept verbatim: whole turns, newest first. */
  keepTokens: number;
  /** The last turn (the one running) stays even past keepTokens: its large tool results are cut, then its oldest steps summarized. */
  keepCurrentTurn: boolean;
}

/** A kept tool result is never cut below this many characters. */
const RESULT_FLOOR_CHARS = 2000;

type ToolResult = Extract<ContentPart, { type: 'tool_result' }>;

export const resultText = (p: ToolResult): string => (typeof p.content === 'string' ? p.content : JSON.stringify(p.content));

/** `text` cut to about `keep` characters: its head and tail, with a note of how much was cut between them. */
export function cutMiddle(text: string, keep: number, note = (n: number) => `[… ${n} characters cut …]`): string {
  if (text.length <= keep) return text;
  const head = Math.ceil(keep / 2);
  const tail = keep - head;
  return `${text.slice(0, head)}\n${note(text.length - keep)}\n${tail > 0 ? text.slice(-tail) : ''}`;
}

/** A kept tool result cut at compaction (the note tells the model the output is incomplete). */
export function cutResult(p: ToolResult, keep: number): ToolResult {
  const text = resultText(p);
  if (text.length <= keep) return p;
  return { ...p, content: cutMiddle(text, keep, (n) => `[… ${n} characters of this tool result were cut when the context was compacted …]`) };
}

/** Applies a compaction's truncations to the messages left in a context (copies; the transcript's objects are not touched). */
export function applyTruncations(messages: Message[], truncated: readonly Truncation[] | undefined): void {
  if (!truncated?.length) return;
  for (const t of truncated) {
    const i = messages.findIndex((m) => m.id === t.message_id);
    if (i < 0) continue;
    const m = messages[i]!;
    messages[i] = { ...m, content: m.content.map((p) => (p.type === 'tool_result' && p.tool_use_id === t.tool_use_id ? cutResult(p, t.kept_chars) : p)) };
  }
}

/**
 * Where the history may be cut: before index i when every tool call before i has its result
 * before i (a call and its result are never split) and message i is not a tool result.
 */
export function safeCuts(history: readonly Message[]): boolean[] {
  const safe: boolean[] = [];
  const open = new Set<string>();
  for (let i = 0; i < history.length; i++) {
    const m = history[i]!;
    safe.push(open.size === 0 && m.role !== 'tool');
    for (const p of m.content) {
      if (p.type === 'tool_use') open.add(p.id);
      else if (p.type === 'tool_result') open.delete(p.tool_use_id);
    }
  }
  safe.push(open.size === 0);
  return safe;
}

const isTurnStart = (m: Message): boolean => m.role === 'user' && !m.metadata?.compaction;

/**
 * Which leading messages a compaction replaces. With `keepCurrentTurn`, the last turn stays (its
 * large tool results cut by water-filling so it fits keepTokens, then, if it still does not, its
 * oldest steps go into the summary); then earlier turns are kept whole, newest first, while they fit.
 */
export function planCompaction(history: readonly Message[], policy: KeepPolicy): CompactionPlan {
  const n = history.length;
  const safe = safeCuts(history);
  const starts: number[] = [];
  for (let i = 0; i < n; i++) if (safe[i] && isTurnStart(history[i]!)) starts.push(i);
  let budget = policy.keepTokens;
  let cut = n;
  let truncated: Truncation[] = [];
  if (policy.keepCurrentTurn && n > 0) {
    const current = starts.at(-1) ?? firstSafe(safe, 0, n);
    const kept = fitCurrent(history, safe, current, budget);
    cut = kept.cut;
    truncated = kept.truncated;
    budget -= kept.tokens;
  }
  // Earlier turns, whole, newest first.
  for (let k = starts.length - 1; k >= 0; k--) {
    const s = starts[k]!;
    if (s >= cut) continue;
    const cost = span(history, s, cut);
    if (cost > budget) break;
    budget -= cost;
    cut = s;
  }
  return { replaced: cut, truncated };
}

function firstSafe(safe: boolean[], from: number, n: number): number {
  for (let i = from; i <= n; i++) if (safe[i]) return i;
  return n;
}

function span(history: readonly Message[], from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) n += messageTokens(history[i]!);
  return n;
}

/**
 * The current turn from `start`, fitted to `budget` tokens: its tool results cut to a common cap, then
 * its oldest steps dropped. Its last step (or its prompt) always stays, cut to the floor if need be.
 */
function fitCurrent(history: readonly Message[], safe: boolean[], start: number, budget: number): { cut: number; truncated: Truncation[]; tokens: number } {
  const n = history.length;
  let cut = start;
  for (let next = firstSafe(safe, cut + 1, n); ; next = firstSafe(safe, cut + 1, n)) {
    const last = next >= n;
    const fitted = waterFill(history.slice(cut), budget, last);
    if (fitted) return { cut, ...fitted };
    cut = next;
  }
}

/**
 * The largest cap (at least RESULT_FLOOR_CHARS) such that the messages fit `budget` tokens with
 * every tool result longer than the cap cut to it; undefined when even the floor does not fit,
 * unless `force` (then cut to the floor).
 */
function waterFill(messages: Message[], budget: number, force: boolean): { truncated: Truncation[]; tokens: number } | undefined {
  const results: Array<{ message_id: string; tool_use_id: string; chars: number }> = [];
  let total = 0;
  for (const m of messages) {
    total += messageTokens(m);
    for (const p of m.content) if (p.type === 'tool_result') results.push({ message_id: m.id, tool_use_id: p.tool_use_id, chars: resultText(p).length });
  }
  if (total <= budget) return { truncated: [], tokens: total };
  const excessChars = (total - budget) * CHARS_PER_TOKEN;
  // Characters a cap c removes from the results: sum(max(0, size - c)).
  const removable = (c: number) => results.reduce((s, r) => s + Math.max(0, r.chars - c), 0);
  if (removable(RESULT_FLOOR_CHARS) < excessChars && !force) return undefined;
  let lo = RESULT_FLOOR_CHARS;
  let hi = Math.max(RESULT_FLOOR_CHARS, ...results.map((r) => r.chars));
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (removable(mid) >= excessChars) lo = mid;
    else hi = mid;
  }
  const cap = lo;
  const truncated = results.filter((r) => r.chars > cap).map((r) => ({ message_id: r.message_id, tool_use_id: r.tool_use_id, kept_chars: cap }));
  return { truncated, tokens: Math.max(0, total - Math.floor(removable(cap) / CHARS_PER_TOKEN)) };
}

/** Whether the part of `history` a compaction would replace holds anything besides earlier summaries. */
export function compactable(history: readonly Message[], replaced = history.length): boolean {
  return history.slice(0, replaced).some((m) => !m.metadata?.compaction);
}
