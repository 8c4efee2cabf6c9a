import { readFile } from 'node:fs/promises';
import { round } from './stats.ts';

/** A process's CPU time (user + system) so far, in ms (Linux /proc; NaN elsewhere): steadier than latencies on a shared VM. */
export async function cpuMs(pid: number): Promise<number> {
  try {
    // Fields after the command name: utime and stime are the 12th and 13th, in clock ticks (100 a second).
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

export async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return round(Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN) / 1024);
}

/** RSS by kind of mapping (/proc/<pid>/smaps): files (code, the node binary), the brk heap (glibc's main malloc arena), anonymous (V8 heaps of every isolate, other malloc arenas, large mallocs). */
export async function rssBreakdownMb(pid: number): Promise<Record<string, number>> {
  const out: Record<string, number> = { file: 0, brk_heap: 0, anon: 0 };
  let kind = 'anon';
  for (const line of (await readFile(`/proc/${pid}/smaps`, 'utf8')).split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) kind = head[1]!.startsWith('/') ? 'file' : head[1] === '[heap]' ? 'brk_heap' : 'anon';
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) out[kind]! += Number(rss[1]);
  }
  return Object.fromEntries(Object.entries(out).map(([k, kb]) => [k, round(kb / 1024)]));
}
