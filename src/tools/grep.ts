import * as v from 'valibot';
import { runRg } from './rg.ts';
import { truncateHead } from './truncate.ts';
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

export const grepTool = defineTool({
  name: 'Grep',
  description: 'Searches file contents with ripgrep. output_mode: files_with_matches (default), content (matching lines), count.',
  schema: Input,
  readOnly: true,
  async run(input, ctx) {
    // rel keeps reported paths relative to the workspace root (absolute in additional dirs).
    const target = await ctx.confine(input.path ?? '.');
    const out = await runRg([...rgArgs(input), '--', target.rel], ctx.session.cwd, ctx.signal);
    let lines = out.split('\n').filter(Boolean).map((l) => (l.startsWith('./') ? l.slice(2) : l));
    if (!lines.length) return 'No matches found';
    const total = lines.length;
    if (input.head_limit && total > input.head_limit) lines = lines.slice(0, input.head_limit);
    const more = lines.length < total ? `\n[${total - lines.length} more lines not shown (head_limit)]` : '';
    return truncateHead(lines.join('\n') + more);
  },
});
