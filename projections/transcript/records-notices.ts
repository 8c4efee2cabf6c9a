import type { JournalEvent } from '../../journal/types.ts';
import { marker } from './records-write.ts';
import type { OpsOut, RecordsState } from './records-state.ts';
import { agentIdOf, type Family } from './state.ts';

// `notice` markers (spec/clients.md B6 `{level, message, event: {code, name, retryable, details}}`, C2 "error /
// warning"): the turn-error banner of a failed turn is records.ts's (level error); the warnings are here, one per
// condition this daemon really meets:
// - a model request that failed and is retried (`turn.step.retrying`): code = the error kind, name `step_retrying`, or
//   `context_overflow` when the provider refused it as too long for the window (the context is compacted, then one retry);
// - a step the model ended at its output-token limit or the provider's content filter stopped
//   (`turn.step.completed` finish_reason `length` / `content_filter`): name `output_truncated` / `content_filtered`;
// - a hook command that failed or timed out (`hook.result` outcome error / timed_out): name `hook_failed`;
// - a compaction that failed (`compaction.failed`; the context stays as it was): name `compaction_failed`.
// The reference server's other warning kinds have no source here and are never produced: cron jobs, cost limits,
// tower mode, and the llmServer* timings (no such features, prices or server-side figures).

type Details = { statusCode?: number; [k: string]: unknown };

function warning(s: RecordsState, o: OpsOut, agentId: string, e: JournalEvent, message: string, source: string, event: { code: string; name: string; retryable: boolean; details?: Details }): void {
  marker(s, o, agentId, 'notice', { level: 'warning', message, source, event: { ...event, details: event.details ?? {} } }, e.ts);
}

const status = (st: number | undefined): Details => (st !== undefined ? { statusCode: st } : {});

const FINISH_WARNINGS: Record<string, { name: string; message: string }> = {
  length: { name: 'output_truncated', message: 'The model stopped at its output-token limit: the answer may be cut short.' },
  content_filter: { name: 'content_filtered', message: 'The provider\'s content filter stopped the answer.' },
};

export const recordsNotices = {
  'turn.step.retrying': ({ rec: s }, p, e, o) => {
    if (p.error.kind === 'context_overflow') {
      warning(s, o, agentIdOf(p), e, `The request was too long for the model's context window (${p.error.message}): the context is compacted and the step retried once.`, 'llm', {
        code: p.error.kind, name: 'context_overflow', retryable: true, details: { ...status(p.error.status), attempt: p.attempt, nextAttempt: p.next_attempt },
      });
      return;
    }
    const max = p.max_attempts !== undefined ? ` of ${p.max_attempts}` : '';
    warning(s, o, agentIdOf(p), e, `${p.error.message} (retrying: attempt ${p.next_attempt}${max} in ${Math.round(p.delay_ms / 100) / 10} s)`, 'llm', {
      code: p.error.kind, name: 'step_retrying', retryable: true, details: { ...status(p.error.status), attempt: p.attempt, nextAttempt: p.next_attempt },
    });
  },
  'turn.step.completed': ({ rec: s }, p, e, o) => {
    const w = FINISH_WARNINGS[p.finish_reason];
    if (w) warning(s, o, agentIdOf(p), e, w.message, 'llm', { code: p.finish_reason, name: w.name, retryable: false, details: { step: p.step } });
  },
  'hook.result': ({ rec: s }, p, e, o) => {
    if (p.outcome !== 'error' && p.outcome !== 'timed_out') return;
    const what = p.outcome === 'timed_out' ? 'timed out' : `failed${p.exit_code !== undefined && p.exit_code !== null ? ` (exit code ${p.exit_code})` : ''}`;
    warning(s, o, agentIdOf(p), e, `${p.hook_event} hook ${what}: ${p.command}`, 'hook', {
      code: p.outcome, name: 'hook_failed', retryable: false,
      details: { hookEvent: p.hook_event, ...(p.exit_code !== undefined && p.exit_code !== null ? { exitCode: p.exit_code } : {}), ...(p.reason ? { reason: p.reason } : {}) },
    });
  },
  'compaction.failed': ({ rec: s }, p, e, o) => warning(s, o, agentIdOf(p), e, `Compaction failed: ${p.error.message}`, 'compaction', {
    code: p.error.kind, name: 'compaction_failed', retryable: false, details: { ...status(p.error.status), compactionId: p.compaction_id },
  }),
} satisfies Family;
