import type { ModelClient, Usage, WireError } from '../../providers/wire/types.ts';
import type { Failure } from '../../../protocol/events/common.ts';
import { backoffMs, sleep } from '../retry.ts';
import { runAttempt } from '../step.ts';
import { mergeRequest, partRequest, wholeRequest } from './prompt.ts';
import { cutMiddle } from './plan.ts';
import { packChunks } from './render.ts';

export interface SummarizeInput {
  client: ModelClient;
  /** Characters of transcript one request may carry (the compaction model's window, less its reserve). */
  chunkChars: number;
  instruction?: string;
  maxAttempts: number;
  retryBaseMs: number;
  idleTimeoutMs: number;
  signal: AbortSignal;
}

export interface Summary {
  text: string;
  usage: Usage;
  /** Model requests that produced a summary (one, or the parts and their merges). */
  requests: number;
  /** Attempts of the last request (compaction.failed `attempts`). */
  attempts: number;
  error?: Failure;
}

/** Halvings of the chunk size tried when the model still answers that a request is too long. */
const MAX_SPLITS = 3;

const ZERO = (): Usage => ({ input: 0, output: 0, cache_read: 0, cache_creation: 0 });

/**
 * The summary of `blocks` (the transcript of the replaced history). When it does not fit one request
 * it is summarized in parts, then the part summaries merged (in as many rounds as needed). A request the
 * model refuses as too long is retried with chunks half the size (the estimate was short).
 */
export async function summarize(s: SummarizeInput, blocks: readonly string[]): Promise<Summary> {
  const total: Summary = { text: '', usage: ZERO(), requests: 0, attempts: 0 };
  let chunkChars = s.chunkChars;
  for (let split = 0; ; split++) {
    const r = await summarizeIn(s, blocks, chunkChars, total);
    if (r.error?.kind !== 'context_overflow' || split >= MAX_SPLITS || chunkChars < 2000) return r;
    chunkChars = Math.floor(chunkChars / 2);
  }
}

async function summarizeIn(s: SummarizeInput, blocks: readonly string[], chunkChars: number, total: Summary): Promise<Summary> {
  const chunks = packChunks(blocks, chunkChars);
  if (chunks.length <= 1) return ask(s, wholeRequest(chunks[0] ?? '', s.instruction), total);
  let parts: string[] = [];
  for (const [i, chunk] of chunks.entries()) {
    const r = await ask(s, partRequest(chunk, i + 1, chunks.length, s.instruction), total);
    if (r.error) return r;
    parts.push(r.text);
  }
  // Merge rounds: each round packs the part summaries into as few requests as fit.
  for (;;) {
    let labelled = parts.map((p, i) => `### Part ${i + 1}\n${p}`);
    let groups = packChunks(labelled, chunkChars);
    if (groups.length > 1 && groups.length >= parts.length) {
      // No two summaries fit one request together: cut each to its share, in one last merge.
      labelled = labelled.map((p) => cutMiddle(p, Math.floor(chunkChars / labelled.length) - 2));
      groups = [labelled.join('\n\n')];
    }
    const next: string[] = [];
    for (const g of groups) {
      const r = await ask(s, mergeRequest(g, s.instruction), total);
      if (r.error) return r;
      next.push(r.text);
    }
    if (next.length === 1) return { ...total, text: next[0]! };
    parts = next;
  }
}

/** One summary request with loop_control retries of transient failures; usage and request counts are added to `total`. */
async function ask(s: SummarizeInput, text: string, total: Summary): Promise<Summary> {
  const sink = { text: () => undefined, thinking: () => undefined };
  const req = { messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text }] }] };
  for (let attempt = 1; ; attempt++) {
    const result = await runAttempt(s.client, req, s.signal, { text: 0, thinking: 0 }, sink, s.idleTimeoutMs);
    add(total.usage, result.usage);
    total.attempts = attempt;
    if (s.signal.aborted) return { ...total, error: { kind: 'aborted', message: 'compaction cancelled' } };
    if (result.error) {
      if (result.error.kind !== 'transient' || attempt >= s.maxAttempts) return { ...total, error: failureOf(result.error) };
      if (!(await sleep(backoffMs(attempt, s.retryBaseMs, result.error.retry_after_ms), s.signal))) {
        return { ...total, error: { kind: 'aborted', message: 'compaction cancelled' } };
      }
      continue;
    }
    const out = result.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('').trim();
    if (!out) return { ...total, error: { kind: 'empty_summary', message: 'the model returned no summary text' } };
    total.requests++;
    return { ...total, text: out };
  }
}

function add(total: Usage, u: Usage): void {
  total.input += u.input;
  total.output += u.output;
  total.cache_read += u.cache_read;
  total.cache_creation += u.cache_creation;
}

function failureOf(e: WireError): Failure {
  return { kind: e.kind, message: e.message, ...(e.status !== undefined ? { status: e.status } : {}) };
}
