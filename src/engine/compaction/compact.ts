import { contextTokens } from '../../../projections/usage/estimate.ts';
import type { UsageProjection } from '../../../projections/usage/session-usage.ts';
import type { ModelClient, ToolSpec, WireError } from '../../providers/wire/types.ts';
import { summaryRequest, summaryText } from './prompt.ts';
import { CompactionEvents } from './events.ts';
import type { CompactionCompletedPayload, CompactionFailedPayload, CompactionStartedPayload, CompactionTrigger } from '../../../protocol/events/compaction.ts';
import { EngineEvents } from '../events.ts';
import type { Message } from '../../../protocol/events/turns.ts';
import type { Usage } from '../../../protocol/events/common.ts';
import { estimateTokens, toModelMessages } from '../history.ts';
import { backoffMs, sleep } from '../retry.ts';
import { runAttempt, type AttemptResult } from '../step.ts';
import { MAIN_AGENT, type TurnDeps } from '../turn.ts';
import type { NewEvent } from '../../../protocol/events/registry.ts';

/** A turn's deps plus the usage projection the context size is measured from. */
export type CompactionDeps = TurnDeps & { usage: UsageProjection };

export interface CompactionInput {
  deps: CompactionDeps;
  sessionId: string;
  /** The agent's live context; replaced in place on success. */
  history: Message[];
  /** The model client, or why there is none (reported as compaction.failed). */
  client: ModelClient | { kind: string; message: string };
  tools: ToolSpec[];
  trigger: CompactionTrigger;
  instruction?: string;
  /** Trailing messages kept verbatim after the summary (the prompt of a turn about to take its first step). */
  keep: number;
  maxAttempts: number;
  retryBaseMs: number;
  idleTimeoutMs: number;
  signal: AbortSignal;
}

type Failure = CompactionFailedPayload['error'];

/** Whether the part of `history` a compaction would replace holds anything besides an earlier summary. */
export function compactable(history: readonly Message[], keep = 0): boolean {
  return history.slice(0, Math.max(0, history.length - keep)).some((m) => !m.metadata?.compaction);
}

/** Context size for compaction decisions: the measured+estimated count, or the history estimate when larger. */
export function contextNow(deps: { usage: UsageProjection }, sessionId: string, history: readonly Message[]): number {
  return Math.max(contextTokens(deps.usage.get(sessionId), 'measured+estimated'), estimateTokens(history as Message[]));
}

/**
 * One compaction: journals `compaction.started`, asks the model for a summary of the
 * replaced messages (transient failures retried with backoff, up to maxAttempts in all),
 * then journals `compaction.completed` + the summary's `message.created`, or `compaction.failed`.
 * Returns whether the context was compacted.
 */
export async function compact(c: CompactionInput): Promise<boolean> {
  const compaction_id = c.deps.ids.next('cmp');
  const base = { compaction_id, agent_id: MAIN_AGENT };
  const emit = (events: NewEvent[]) => c.deps.journal.append(events.map((e) => ({ stream: c.sessionId, ...e })));
  const started: CompactionStartedPayload = { ...base, trigger: c.trigger, ...(c.instruction ? { instruction: c.instruction } : {}) };
  await emit([{ type: CompactionEvents.started, payload: started }]);
  const replaced = Math.max(0, c.history.length - c.keep);
  const tokens_before = contextNow(c.deps, c.sessionId, c.history);
  const { result, attempts } = await summarize(c, c.history.slice(0, replaced));
  const text = result.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('').trim();
  const error: Failure | undefined = result.error ? failureOf(result.error) : text ? undefined : { kind: 'empty_summary', message: 'the model returned no summary text' };
  if (error) {
    await emit([{ type: CompactionEvents.failed, payload: { ...base, error, attempts } satisfies CompactionFailedPayload }]);
    return false;
  }
  const summary: Message = {
    id: c.deps.ids.next('msg'), session_id: c.sessionId, role: 'user', content: [{ type: 'text', text: summaryText(text) }],
    created_at: c.deps.clock.now().toISOString(), metadata: { compaction: { compaction_id, trigger: c.trigger, replaced_messages: replaced } },
  };
  // In memory at once (nothing awaited since the slice), on disk in the order replay expects.
  c.history.splice(0, replaced, summary);
  const done: CompactionCompletedPayload = {
    ...base, summary_message_id: summary.id, replaced_messages: replaced, tokens_before, tokens_after: estimateTokens(c.history), usage: usageOf(result),
  };
  await emit([
    { type: CompactionEvents.completed, payload: done },
    { type: EngineEvents.messageCreated, payload: { agent_id: MAIN_AGENT, message: summary } },
  ]);
  return true;
}

async function summarize(c: CompactionInput, replaced: Message[]): Promise<{ result: AttemptResult; attempts: number }> {
  const empty = (error: WireError): AttemptResult => ({ parts: [], toolCalls: [], usage: { input: 0, output: 0, cache_read: 0, cache_creation: 0 }, error });
  if (!('stream' in c.client)) return { result: empty({ kind: c.client.kind, message: c.client.message } as WireError), attempts: 0 };
  const messages = summaryRequest(await toModelMessages(replaced, { files: c.deps, sessionId: c.sessionId, model: c.client }), c.instruction);
  const sink = { text: () => undefined, thinking: () => undefined };
  for (let attempt = 1; ; attempt++) {
    const result = await runAttempt(c.client, { messages, tools: c.tools }, c.signal, { text: 0, thinking: 0 }, sink, c.idleTimeoutMs);
    if (c.signal.aborted) return { result: empty({ kind: 'aborted', message: 'compaction cancelled' }), attempts: attempt };
    if (!result.error || result.error.kind !== 'transient' || attempt >= c.maxAttempts) return { result, attempts: attempt };
    if (!(await sleep(backoffMs(attempt, c.retryBaseMs, result.error.retry_after_ms), c.signal))) {
      return { result: empty({ kind: 'aborted', message: 'compaction cancelled' }), attempts: attempt };
    }
  }
}

function failureOf(e: WireError): Failure {
  return { kind: e.kind, message: e.message, ...(e.status !== undefined ? { status: e.status } : {}) };
}

function usageOf(r: AttemptResult): Usage {
  return { input_tokens: r.usage.input, output_tokens: r.usage.output, cache_read_tokens: r.usage.cache_read, cache_creation_tokens: r.usage.cache_creation };
}
