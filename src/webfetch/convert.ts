import { fork } from 'node:child_process';
import { childEnv } from '../lib/child-env.ts';

export interface ConvertRequest { html: string; url: string }
export interface ConvertResult { title?: string; markdown: string }
type Reply = { ok: true; result: ConvertResult } | { ok: false; error: string };

/** Characters of the child's stderr kept for the error of a child that died. */
const STDERR_TAIL = 2000;

/** Limits of one conversion's child process. */
export interface ConvertLimits {
  timeoutMs: number;
  /** Old-generation heap of the child, MB: a pathological page ends the child, not the daemon. */
  heapMb: number;
}

/** The child's module beside this one: `.js` in dist/; under tsx (tests, dev) `.ts`, with tsx loaded in the child. */
function startChild(heapMb: number) {
  const ts = import.meta.url.endsWith('.ts');
  const file = new URL(ts ? './convert-child.ts' : './convert-child.js', import.meta.url);
  const execArgv = [`--max-old-space-size=${heapMb}`, ...(ts ? ['--import', import.meta.resolve('tsx')] : [])];
  return fork(file, [], { execArgv, serialization: 'advanced', stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: childEnv() });
}

/**
 * HTML to Markdown (Readability's article when it finds one, else the whole body; Turndown for the Markdown),
 * in a child process started for this page: the parse of a large page takes seconds of CPU and hundreds of MB,
 * which must not stall the daemon's event loop nor stay in its memory (a worker thread's freed heap stayed in
 * the daemon's RSS: +50 MB after one 1.5 MB page). Killed at the deadline or when the signal aborts.
 */
export function htmlToMarkdown(req: ConvertRequest, limits: ConvertLimits, signal: AbortSignal): Promise<ConvertResult> {
  if (signal.aborted) return Promise.reject(new Error('the fetch was cancelled'));
  return new Promise((resolve, reject) => {
    const child = startChild(limits.heapMb);
    // The end of the child's stderr names why it died (an out-of-memory abort, a module that failed to load).
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL)));
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      fn();
    };
    const timer = setTimeout(() => finish(() => reject(new Error(`converting the page took longer than ${limits.timeoutMs / 1000} s`))), limits.timeoutMs);
    const onAbort = () => finish(() => reject(new Error('the fetch was cancelled')));
    signal.addEventListener('abort', onAbort, { once: true });
    child.once('message', (m: Reply) => finish(() => (m.ok ? resolve(m.result) : reject(new Error(m.error)))));
    child.once('error', (err) => finish(() => reject(err)));
    child.once('close', (code, sig) => finish(() => {
      // Native stack frames (` 7: 0x1080237 v8::...`) say nothing to the model: the message lines do.
      const why = stderr.split('\n').map((l) => l.trim()).filter((l) => l && !/^(\d+: 0x|-----)/.test(l)).slice(-2).join(' | ');
      reject(new Error(`the converter stopped (${sig ?? `exit code ${code}`})${why ? `: ${why}` : ''}`));
    }));
    child.send(req, (err) => err && finish(() => reject(err)));
  });
}
