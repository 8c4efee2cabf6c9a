import { readFile, writeFile } from 'node:fs/promises';
import * as v from 'valibot';
import { recordFileChange } from './file-history.ts';
import { decodeTextFile, encodeTextFile, unencodable } from './text-file.ts';
import { defineTool, stopIfAborted, ToolError } from './types.ts';

const Input = v.strictObject({
  file_path: v.pipe(v.string(), v.minLength(1), v.description('Path of the file to edit')),
  old_string: v.pipe(v.string(), v.minLength(1), v.description('Exact text to replace')),
  new_string: v.pipe(v.string(), v.description('Replacement text')),
  replace_all: v.optional(v.pipe(v.boolean(), v.description('Replace every occurrence (default: old_string must be unique)'))),
});

function count(hay: string, needle: string): number {
  let n = 0;
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + needle.length)) n++;
  return n;
}

export const editTool = defineTool({
  name: 'Edit',
  description: 'Replaces an exact string in a file. old_string must match exactly once unless replace_all is true.',
  schema: Input,
  readOnly: false,
  async run(input, ctx) {
    const { abs, rel } = await ctx.confine(input.file_path);
    await ctx.deps.stamps.guard(ctx.session.id, ctx.agentId, abs, rel);
    const bytes = await readFile(abs).catch(() => { throw new ToolError(`file not found: ${input.file_path}`); });
    const file = decodeTextFile(bytes);
    if (!file) throw new ToolError(`${rel} is a binary file; Edit changes text files only (nothing was changed)`);
    const { text } = file;
    // The file's line ends are kept: the model's strings are matched and written with `\n`, converted back on write.
    const [oldString, newString] = file.eol === '\r\n' ? [input.old_string.replaceAll('\r\n', '\n'), input.new_string.replaceAll('\r\n', '\n')] : [input.old_string, input.new_string];
    if (oldString === newString) throw new ToolError('old_string and new_string are identical; nothing to change');
    const n = count(text, oldString);
    if (n === 0) throw new ToolError(`old_string not found in ${rel}; it must match the file exactly, including whitespace`);
    if (n > 1 && !input.replace_all) {
      throw new ToolError(`old_string matches ${n} times in ${rel}; add surrounding context to make it unique, or set replace_all`);
    }
    const lost = unencodable(newString, file.encoding);
    if (lost.length) throw new ToolError(`${rel} is not UTF-8 (kept in its single-byte encoding); new_string has characters it cannot hold: ${lost.slice(0, 10).join(' ')}`);
    const next = input.replace_all ? text.split(oldString).join(newString) : text.replace(oldString, () => newString);
    stopIfAborted(ctx);
    await writeFile(abs, encodeTextFile(next, file));
    await ctx.deps.stamps.seen(ctx.session.id, ctx.agentId, abs);
    await recordFileChange(ctx, 'Edit', rel, text, next);
    return `replaced ${input.replace_all ? n : 1} occurrence${n > 1 && input.replace_all ? 's' : ''} in ${rel}`;
  },
});
