import { readFile, stat } from 'node:fs/promises';
import * as v from 'valibot';
import { savedOutput } from './tool-results.ts';
import { defineTool, ToolError } from './types.ts';

const Input = v.strictObject({
  file_path: v.pipe(v.string(), v.minLength(1), v.description('Path of the file (relative to the workspace root, or absolute inside it)')),
  offset: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.description('1-based line to start from'))),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.description('Number of lines to read'))),
  max_chars: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.description('Character budget of the result (capped by [read] max_chars)'))),
});

const numbered = (n: number, line: string) => `${String(n).padStart(6)}\t${line}`;

/**
 * `cat -n` lines from `offset`, stopping at `limit` lines or when the next line would
 * overflow the budget. Part B "read": the budget covers content, line numbers and the
 * status block, so the status block's room is reserved up front.
 */
export function renderLines(lines: string[], offset: number, limit: number, budget: number): string {
  const end = Math.min(lines.length, offset - 1 + limit);
  const status = (last: number, why: string) => `\n[${why}: showed lines ${offset}-${last} of ${lines.length}; continue with offset=${last + 1}]`;
  const reserve = status(end, 'truncated at character budget').length;
  const out: string[] = [];
  let used = 0;
  for (let i = offset - 1; i < end; i++) {
    const row = numbered(i + 1, lines[i]!);
    if (used + row.length + 1 + reserve > budget) break;
    out.push(row);
    used += row.length + 1;
  }
  const last = offset - 1 + out.length;
  let body = out.join('\n');
  if (last < end) body += status(last, 'truncated at character budget');
  else if (end < lines.length) body += status(last, 'more lines');
  return body.length <= budget ? body : body.slice(0, budget);
}

export const readTool = defineTool({
  name: 'Read',
  description: 'Reads a text file and returns its lines numbered like `cat -n`. Use offset/limit (in lines) for long files; output is capped by a character budget.',
  schema: Input,
  readOnly: true,
  async run(input, ctx) {
    // A tool output saved whole (tool-results.ts) is readable besides the workspace.
    const abs = (await savedOutput(ctx.deps.home, ctx.session.id, input.file_path)) ?? (await ctx.confine(input.file_path)).abs;
    const st = await stat(abs).catch(() => { throw new ToolError(`file not found: ${input.file_path}`); });
    if (st.isDirectory()) throw new ToolError(`${input.file_path} is a directory; use Glob to list files`);
    const text = await readFile(abs, 'utf8');
    if (text === '') return '[empty file]';
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    const offset = input.offset ?? 1;
    if (offset > lines.length) throw new ToolError(`offset ${offset} is past the end of the file (${lines.length} lines)`);
    const { default_max_chars, max_chars } = ctx.config.read;
    const budget = Math.min(input.max_chars ?? default_max_chars, max_chars);
    return renderLines(lines, offset, input.limit ?? lines.length, budget);
  },
});
