import { appendFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/**
 * Prompt-path timestamps for the latency bench (docs/benchmarks.md, prompt latency). Off unless
 * SVC_CODE_TRACE_PROMPT names a file: then each turn records the first time it passes each mark
 * (keyed by session; journal appends of the session made before the turn show up too, earlier),
 * and one JSON line per turn is appended to that file when the turn ends (bench/trace-report.ts
 * summarizes it). Every call is a no-op when off.
 */
const FILE = process.env.SVC_CODE_TRACE_PROMPT || '';
export const tracing = FILE !== '';

/** Per key: [label, epoch ms, the event loop's cumulative idle ms, monotonic µs (as a --cpu-prof timeline)]. */
const marks = new Map<string, Array<[string, number, number, number]>>();

/** Records `label` for `key` (a session id) the first time it is reached. */
export function mark(key: string | undefined, label: string): void {
  if (!tracing || !key) return;
  let m = marks.get(key);
  if (!m) marks.set(key, (m = []));
  if (!m.some(([l]) => l === label)) m.push([label, performance.timeOrigin + performance.now(), performance.eventLoopUtilization().idle, Number(process.hrtime.bigint() / 1000n)]);
}

/** Writes the session's marks as one line (absolute epoch ms) and forgets them. */
export function flushTrace(key: string): void {
  if (!tracing) return;
  const m = marks.get(key);
  marks.delete(key);
  if (m) appendFileSync(FILE, JSON.stringify({ key, marks: m }) + '\n');
}
