import { messageChars } from '../../../projections/usage/estimate.ts';
import type { Message } from '../../../protocol/events/turns.ts';
import type { ToolSpec } from '../../providers/wire/types.ts';

/** About 4 characters a token: the estimate Part B token_counting calls "estimated". */
export const CHARS_PER_TOKEN = 4;

/** Default reserve when `loop_control.reserved_context_size` is unset: the smaller of this and a quarter of the window. */
export const DEFAULT_RESERVE_TOKENS = 32_000;
export const DEFAULT_RESERVE_SHARE = 0.25;

/** Share of the usable window (window - reserve - request overhead - summary) kept verbatim after a compaction. */
const KEEP_SHARE = 0.5;
/** What a summary is allowed to take: the smaller of this and an eighth of the window. */
const SUMMARY_TOKENS = 4000;
/** The summary request's own text (instructions, headers) besides the transcript it carries. */
const REQUEST_OVERHEAD_TOKENS = 600;

export const tokensOf = (chars: number): number => Math.ceil(chars / CHARS_PER_TOKEN);

/**
 * The reserve kept free below the window: `reserved_context_size` when configured; else the smaller of
 * 32,000 and 25% of the window, so small windows are not all reserve and large ones keep room for the
 * answer and the estimate's error; and at least the model's `max_output_size` (up to half the window),
 * which the messages_api provider sends as `max_tokens` and Anthropic counts against the window.
 */
export function reserveFor(window: number, configured: number | undefined, maxOutput?: number): number {
  if (configured !== undefined && configured > 0) return configured;
  const rule = Math.min(DEFAULT_RESERVE_TOKENS, Math.ceil(window * DEFAULT_RESERVE_SHARE));
  return Math.max(rule, Math.min(maxOutput ?? 0, Math.floor(window / 2)));
}

/** Estimated tokens of one message as the model sees it (partial output of interrupted attempts is not sent). */
export function messageTokens(m: Message): number {
  if (m.role === 'assistant' && m.metadata?.interrupted) return 0;
  // A few tokens of framing per message (role, separators).
  return tokensOf(messageChars(m)) + 4;
}

export function historyTokens(messages: readonly Message[]): number {
  let n = 0;
  for (const m of messages) n += messageTokens(m);
  return n;
}

/** Tokens a request carries besides its messages: the system prompt and the tool specs. */
export function overheadTokens(system: string | undefined, tools: readonly ToolSpec[]): number {
  return tokensOf((system?.length ?? 0) + (tools.length ? JSON.stringify(tools).length : 0));
}

/** The window a context must fit, and what it is compacted to. */
export interface WindowBudget {
  /** max_input_size, else max_context_size. */
  window: number;
  reserve: number;
}

export function summaryTokens(b: WindowBudget): number {
  return Math.min(SUMMARY_TOKENS, Math.floor(b.window / 8));
}

/** Tokens of recent history kept verbatim after a compaction (the rest of the window is room to work). */
export function keepTokens(b: WindowBudget, overhead: number, share = KEEP_SHARE): number {
  const usable = b.window - b.reserve - overhead - summaryTokens(b);
  return Math.max(0, Math.floor(usable * share));
}

/** Tokens of transcript one summary request may carry on the compaction model's window. */
export function chunkTokens(b: WindowBudget): number {
  // Never below a workable floor: a window smaller than its reserve still gets small chunks.
  return Math.max(1000, b.window - b.reserve - REQUEST_OVERHEAD_TOKENS);
}

/** Whether a request of `tokens` (estimated or measured) leaves the reserve free. */
export function fits(b: WindowBudget, tokens: number): boolean {
  return tokens + b.reserve <= b.window;
}
