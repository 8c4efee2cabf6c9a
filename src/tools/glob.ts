import { stat } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import * as v from 'valibot';
import { runRg } from './rg.ts';
import { defineTool } from './types.ts';

const MAX_FILES = 100;

const Input = v.strictObject({
  pattern: v.pipe(v.string(), v.minLength(1), v.description('Glob such as **/*.ts, matched against paths relative to `path`')),
  path: v.optional(v.pipe(v.string(), v.description('Directory to search (default: the workspace root)'))),
});

export const globTool = defineTool({
  name: 'Glob',
  description: `Finds files by glob pattern (gitignored files skipped), newest first, at most ${MAX_FILES}.`,
  schema: Input,
  readOnly: true,
  async run(input, ctx) {
    const dir = await ctx.confine(input.path ?? '.');
    const out = await runRg(['--files', '--hidden', '-g', '!.git'], dir.abs, ctx.signal);
    const match = picomatch(input.pattern, { dot: true });
    const files = out.split('\n').filter((f) => f && match(f));
    const withTime = await Promise.all(files.map(async (f) => ({ f, t: await stat(path.join(dir.abs, f)).then((s) => s.mtimeMs, () => 0) })));
    withTime.sort((a, b) => b.t - a.t || a.f.localeCompare(b.f));
    if (!withTime.length) return 'No files found';
    const shown = withTime.slice(0, MAX_FILES).map((x) => x.f);
    const more = withTime.length > MAX_FILES ? `\n[${withTime.length - MAX_FILES} more files not shown; narrow the pattern]` : '';
    return shown.join('\n') + more;
  },
});
