import { appendFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/**
 * Prompt-path timestamps for the latency bench (docs/benchmarks.md, prompt latency). Off unless the settings'
 * `tracePrompt` (SVC_CODE_TRACE_PROMPT) names a file: then each turn records the first time it passes each mark
 * (keyed by session; journal appends of the session made before the turn show up too, earlier), and one JSON line
 * per turn is appended to that file when the turn ends (bench/trace-report.ts summarizes it).
 *
 * Made once by the storage phase (src/app/phases/storage.ts) and passed to each part that marks.
 */
export interface PromptTracer {
  /** Whether marks are recorded: a caller skips building what only a trace uses (a closure, a middleware). */
  readonly on: boolean;
  /** Records `label` for `key` (a session id) the first time it is reached. */
  mark(key: string | undefined, label: string): void;
  /** Writes the key's marks as one line and forgets them. */
  flush(key: string): void;
}

/** Tracing off: every call does nothing. */
export const noTracer: PromptTracer = Object.freeze({ on: false, mark() {}, flush() {} });

/** Per mark: [label, epoch ms, the event loop's cumulative idle ms, monotonic µs (as a --cpu-prof timeline)]. */
type Mark = [string, number, number, number];

/** Tracing on: marks kept per key until the key's turn ends, then appended to `file` as one JSON line. */
export class FileTracer implements PromptTracer {
  readonly on = true;
  private readonly marks = new Map<string, Mark[]>();

  constructor(private readonly file: string) {}

  mark(key: string | undefined, label: string): void {
    if (!key) return;
    let m = this.marks.get(key);
    if (!m) this.marks.set(key, (m = []));
    if (!m.some(([l]) => l === label)) m.push([label, performance.timeOrigin + performance.now(), performance.eventLoopUtilization().idle, Number(process.hrtime.bigint() / 1000n)]);
  }

  flush(key: string): void {
    const m = this.marks.get(key);
    this.marks.delete(key);
    if (m) appendFileSync(this.file, JSON.stringify({ key, marks: m }) + '\n');
  }
}

/** The tracer the settings ask for: a file-writing one when `file` is set, else the no-op. */
export function promptTracer(file: string | undefined): PromptTracer {
  return file ? new FileTracer(file) : noTracer;
}
