import { messageChars } from '../../../projections/usage/estimate.ts';
import type { ModelClient } from '../../providers/wire/types.ts';
import type { CompactionCompletedPayload, CompactionFailedPayload, CompactionStartedPayload, CompactionTrigger } from '../../../protocol/events/compaction.ts';
import type { Message } from '../../../protocol/events/turns.ts';
import type { Usage } from '../../../protocol/events/common.ts';
import type { TurnDeps } from '../turn.ts';
import type { NewEvent } from '../../../protocol/events/registry.ts';
import { CHARS_PER_TOKEN, chunkTokens, historyTokens, type WindowBudget } from './budget.ts';
import { carriedState, carriedText, hasCarried, type Carried } from './carry.ts';
import { applyTruncations, compactable, planCompaction, type KeepPolicy } from './plan.ts';
import { NOTHING_EARLIER, summaryBody, summaryText } from './prompt.ts';
import { transcriptBlocks } from './render.ts';
import { summarize, type Summary } from './summarize.ts';

export { compactable } from './plan.ts';

/** What a compaction appends to and stamps with. */
export type CompactionDeps = TurnDeps;

export interface CompactionInput {
  deps: CompactionDeps;
  sessionId: string;
  /** The agent whose context this is (`main`, a subagent, a `:btw` agent): its events carry this id. */
  agentId: string;
  /** The agent's live context; replaced in place on success. */
  history: Message[];
  /** The model client (the agent's own model), or why there is none (reported as compaction.failed). */
  client: ModelClient | { kind: string; message: string };
  trigger: CompactionTrigger;
  instruction?: string;
  /** What stays verbatim (manual: nothing; auto: recent turns and the running one). */
  policy: KeepPolicy;
  /** The compaction model's window: summary requests are cut to fit it. */
  budget: WindowBudget;
  /** Tokens of the agent's requests besides the history (system prompt, tools), for tokens_after. */
  overhead: number;
  /** The context size that triggered the compaction (tokens_before). */
  tokensBefore: number;
  maxAttempts: number;
  retryBaseMs: number;
  idleTimeoutMs: number;
  signal: AbortSignal;
}

/**
 * One compaction: journals `compaction.started`, summarizes the replaced messages (in parts when
 * they do not fit one request; transient failures retried with backoff), then journals
 * `compaction.completed` + the summary's `message.created`, or `compaction.failed`. The kept
 * messages follow the summary, their large tool results cut as planned. Returns whether the
 * context was compacted; false without any event when there is nothing to replace. When only earlier
 * summaries precede the running turn, the compaction just cuts the turn's large tool results, keeping
 * the earlier summary as it was (no model request).
 */
export async function compact(c: CompactionInput): Promise<boolean> {
  const plan = planCompaction(c.history, c.policy);
  // Nothing but earlier summaries before the running turn: only its tool results are cut (no model request).
  const cutOnly = !compactable(c.history, plan.replaced);
  if (cutOnly && !plan.truncated.length) return false;
  const compaction_id = c.deps.ids.next('cmp');
  const base = { compaction_id, agent_id: c.agentId };
  const emit = (events: NewEvent[]) => c.deps.journal.append(events.map((e) => ({ stream: c.sessionId, ...e })));
  const started: CompactionStartedPayload = { ...base, trigger: c.trigger, ...(c.instruction ? { instruction: c.instruction } : {}) };
  await emit([{ type: 'compaction.started', payload: started }]);
  const replaced = c.history.slice(0, plan.replaced);
  const chunkChars = chunkTokens(c.budget) * CHARS_PER_TOKEN;
  const result: Summary = cutOnly ? { text: earlierSummaries(replaced), usage: { input: 0, output: 0, cache_read: 0, cache_creation: 0 }, requests: 0, attempts: 0 }
    : 'stream' in c.client ? await summarize({
      client: c.client, chunkChars, maxAttempts: c.maxAttempts, retryBaseMs: c.retryBaseMs, idleTimeoutMs: c.idleTimeoutMs, signal: c.signal,
      ...(c.instruction ? { instruction: c.instruction } : {}),
    }, transcriptBlocks(replaced, chunkChars))
    : { text: '', usage: { input: 0, output: 0, cache_read: 0, cache_creation: 0 }, requests: 0, attempts: 0, error: { kind: c.client.kind, message: c.client.message } };
  if (result.error) {
    await emit([{ type: 'compaction.failed', payload: { ...base, error: result.error, attempts: result.attempts } satisfies CompactionFailedPayload }]);
    return false;
  }
  const carried = carriedState(c.history);
  const summary: Message = {
    id: c.deps.ids.next('msg'), session_id: c.sessionId, role: 'user', content: [{ type: 'text', text: summaryText(result.text, carriedText(carried)) }],
    created_at: c.deps.clock.now().toISOString(),
    metadata: { compaction: { compaction_id, trigger: c.trigger, replaced_messages: plan.replaced, ...(hasCarried(carried) ? { carried } : {}) } },
  };
  // In memory at once, on disk in the order replay expects (replayContext applies the same cut).
  c.history.splice(0, plan.replaced, summary);
  applyTruncations(c.history, plan.truncated);
  const done: CompactionCompletedPayload = {
    ...base, summary_message_id: summary.id, replaced_messages: plan.replaced, tokens_before: c.tokensBefore,
    tokens_after: c.overhead + historyTokens(c.history), usage: usageOf(result), summary_requests: result.requests,
    kept_messages: c.history.length - 1, kept_chars: c.history.slice(1).reduce((n, m) => n + messageChars(m), 0),
    ...(plan.truncated.length ? { truncated_results: plan.truncated } : {}),
  };
  await emit([
    { type: 'compaction.completed', payload: done },
    { type: 'message.created', payload: { agent_id: c.agentId, message: summary } },
  ]);
  return true;
}

/** The text of the summaries a cut-only compaction replaces (they are kept word for word in the new one). */
function earlierSummaries(replaced: readonly Message[]): string {
  const bodies = replaced.flatMap((m) => {
    const carried = (m.metadata?.compaction as { carried?: Carried } | undefined)?.carried;
    const text = m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
    return [summaryBody(text, carried ? carriedText(carried) : '')];
  });
  return bodies.filter(Boolean).join('\n\n') || NOTHING_EARLIER;
}

function usageOf(r: Summary): Usage {
  return { input_tokens: r.usage.input, output_tokens: r.usage.output, cache_read_tokens: r.usage.cache_read, cache_creation_tokens: r.usage.cache_creation };
}
