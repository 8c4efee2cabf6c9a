import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as v from 'valibot';
import { contentBefore, recordFileChange } from './file-history.ts';
import { defineTool, stopIfAborted } from './types.ts';

const Input = v.strictObject({
  file_path: v.pipe(v.string(), v.minLength(1), v.description('Path of the file to create or overwrite')),
  content: v.pipe(v.string(), v.description('The full new content')),
});

export const writeTool = defineTool({
  name: 'Write',
  description: 'Creates or overwrites a file with the given content; missing parent directories are created.',
  schema: Input,
  readOnly: false,
  async run(input, ctx) {
    const { abs, rel } = await ctx.confine(input.file_path);
    await ctx.deps.stamps.guard(ctx.session.id, ctx.agentId, abs, rel);
    stopIfAborted(ctx);
    await mkdir(path.dirname(abs), { recursive: true });
    // The content before, for the file history (null: a new file; a directory or unreadable file fails the write below as before).
    const before = await contentBefore(abs);
    stopIfAborted(ctx);
    await writeFile(abs, input.content);
    await ctx.deps.stamps.seen(ctx.session.id, ctx.agentId, abs);
    await recordFileChange(ctx, 'Write', rel, before, input.content);
    return `wrote ${input.content.length} characters to ${rel}`;
  },
});
