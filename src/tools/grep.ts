import * as v from 'valibot';
import { lineSplitter, streamRg } from './rg.ts';
import { OUTPUT_BUDGET, truncateHead } from './truncate.ts';
import { defineTool } from './types.ts';

const Int0 = v.pipe(v.number(), v.integer(), v.minValue(0));
const Input = v.strictObject({
  pattern: v.pipe(v.string(), v.minLength(1), v.description('Regular expression (ripgrep syntax)')),
  path: v.optional(v.pipe(v.string(), v.description('File or directory to search (default: the workspace root)'))),
  glob: v.optional(v.pipe(v.string(), v.description('Only files matching this glob, e.g. *.ts'))),
  type: v.optional(v.pipe(v.string(), v.description('ripgrep file type, e.g. js, py'))),
  output_mode: v.optional(v.picklist(['content', 'files_with_matches', 'count'])),
  '-i': v.optional(v.boolean()),
  '-n': v.optional(v.pipe(v.boolean(), v.description('Line numbers in content mode (default true)'))),
  '-A': v.optional(Int0),
  '-B': v.optional(Int0),
  '-C': v.optional(Int0),
  head_limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.description('Keep only the first N lines/entries'))),
});
type In = v.InferOutput<typeof Input>;

function rgArgs(input: In): string[] {
  const mode = input.output_mode ?? 'files_with_matches';
  const args = ['--hidden', '-g', '!.git', '--no-heading', '--color', 'never'];
  if (mode === 'files_with_matches') args.push('-l');
  if (mode === 'count') args.push('-c');
  if (input['-i']) args.push('-i');
  if (mode === 'content') {
    if (input['-n'] !== false) args.push('-n');
    for (const k of ['-A', '-B', '-C'] as const) if (input[k] !== undefined) args.push(k, String(input[k]));
  }
  if (input.glob) args.push('-g', input.glob);
  if (input.type) args.push('-t', input.type);
  args.push('-e', input.pattern);
  return args;
}

/**
 * Keeps rg's output lines (`./` dropped) until `keep` lines or past `budget` chars, and only counts
 * the rest: the answer is cut to the budget anyway, and a search matching every line of a big tree
 * need not become 100,000 strings. Counting scans for newlines; rg never prints empty lines, but
 * they are skipped as before.
 */
function collector(keep: number, budget: number) {
  const lines: string[] = [];
  let chars = 0;
  let total = 0;
  /** Char code before the next chunk's first char (10: at a line start). */
  let prev = 10;
  const full = () => lines.length >= keep || chars > budget;
  const split = lineSplitter((l) => {
    if (!l || full()) return;
    const line = l.startsWith('./') ? l.slice(2) : l;
    lines.push(line);
    chars += line.length + 1;
  });
  return {
    push(chunk: string) {
      for (let i = chunk.indexOf('\n'); i >= 0; i = chunk.indexOf('\n', i + 1)) if ((i > 0 ? chunk.charCodeAt(i - 1) : prev) !== 10) total++;
      if (chunk) prev = chunk.charCodeAt(chunk.length - 1);
      if (!full()) split.push(chunk);
    },
    end() {
      if (prev !== 10) total++;
      if (!full()) split.end();
      return { lines, total };
    },
  };
}

export const grepTool = defineTool({
  name: 'Grep',
  description: 'Searches file contents with ripgrep. output_mode: files_with_matches (default), content (matching lines), count.',
  schema: Input,
  readOnly: true,
  async run(input, ctx) {
    // rel keeps reported paths relative to the workspace root (absolute in additional dirs).
    const target = await ctx.confine(input.path ?? '.');
    const out = collector(input.head_limit ?? Infinity, OUTPUT_BUDGET);
    await streamRg([...rgArgs(input), '--', target.rel], ctx.session.cwd, ctx.signal, (c) => out.push(c));
    const { lines, total } = out.end();
    if (!total) return 'No matches found';
    const more = lines.length < total ? `\n[${total - lines.length} more lines not shown (head_limit)]` : '';
    return truncateHead(lines.join('\n') + more);
  },
});
