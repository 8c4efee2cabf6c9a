import { statSync } from 'node:fs';
import picomatch from 'picomatch';
import * as v from 'valibot';
import { globOnlyIgnoreFile, lineSplitter, streamRg } from './rg.ts';
import { defineTool } from './types.ts';

const MAX_FILES = 100;

const Input = v.strictObject({
  pattern: v.pipe(v.string(), v.minLength(1), v.description('Glob such as **/*.ts, matched against paths relative to `path`')),
  path: v.optional(v.pipe(v.string(), v.description('Directory to search (default: the workspace root)'))),
});

interface Found {
  files: string[];
  mtimes: number[];
}

/**
 * Files under `dir` (gitignore honoured) matching `pattern`, with their mtimes (0 when gone),
 * narrowed by rg first when the glob allows it. Each chunk of rg's output is matched and
 * stat'ed as it arrives: synchronous stats, since a promise per file costs several times more on
 * a large match set, and a chunk (a few thousand lines) blocks the loop for a few ms only.
 */
async function findMatching(pattern: string, dir: string, signal: AbortSignal): Promise<Found> {
  const match = picomatch(pattern, { dot: true });
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  const found: Found = { files: [], mtimes: [] };
  const list = (args: string[]) => {
    const lines = lineSplitter((f) => {
      if (!f || !match(f)) return;
      found.files.push(f);
      found.mtimes.push(statSync(prefix + f, { throwIfNoEntry: false })?.mtimeMs ?? 0);
    });
    return streamRg(args, dir, signal, (c) => lines.push(c)).finally(() => lines.end());
  };
  const base = ['--files', '--hidden', '-g', '!.git'];
  const filter = globOnlyIgnoreFile(pattern);
  try {
    await list(filter ? ['--files', '--hidden', '--ignore-file', filter] : base);
  } catch (err) {
    if (!filter || signal.aborted || found.files.length) throw err;
    await list(base);
  }
  return found;
}

/** Indices of the `k` newest files (ties by path), in order: a bounded insertion, not a sort of every match. */
function newest({ files, mtimes }: Found, k: number): number[] {
  const before = (a: number, b: number) => mtimes[a]! > mtimes[b]! || (mtimes[a] === mtimes[b] && files[a]! < files[b]!);
  const top: number[] = [];
  for (let i = 0; i < files.length; i++) {
    if (top.length === k && !before(i, top[k - 1]!)) continue;
    let lo = 0;
    let hi = top.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (before(i, top[mid]!)) hi = mid;
      else lo = mid + 1;
    }
    top.splice(lo, 0, i);
    if (top.length > k) top.pop();
  }
  return top;
}

export const globTool = defineTool({
  name: 'Glob',
  description: `Finds files by glob pattern (gitignored files skipped), newest first, at most ${MAX_FILES}.`,
  schema: Input,
  readOnly: true,
  async run(input, ctx) {
    const dir = await ctx.confine(input.path ?? '.');
    const found = await findMatching(input.pattern, dir.abs, ctx.signal);
    const { files } = found;
    if (!files.length) return 'No files found';
    const shown = newest(found, MAX_FILES).map((i) => files[i]!);
    const more = files.length > MAX_FILES ? `\n[${files.length - MAX_FILES} more files not shown; narrow the pattern]` : '';
    return shown.join('\n') + more;
  },
});
