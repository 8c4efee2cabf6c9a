import { open, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import mime from 'mime-types';
import * as v from 'valibot';
import { binaryTypeOf, imageFormatOf, looksBinary } from '../media/images/detect.ts';
import { readImage, RegionInput } from './read-image.ts';
import { savedOutput } from './tool-results.ts';
import { defineTool, ToolError } from './types.ts';

const Input = v.strictObject({
  file_path: v.pipe(v.string(), v.minLength(1), v.description('Path of the file (relative to the workspace root, or absolute inside it)')),
  offset: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.description('1-based line to start from'))),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.description('Number of lines to read'))),
  max_chars: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.description('Character budget of the result (capped by [read] max_chars)'))),
  region: v.optional(RegionInput),
  full_resolution: v.optional(v.pipe(v.boolean(), v.description('Images only: read back the whole image at its original resolution (not scaled to [image] max_edge_px, no read byte budget; the provider\'s own limits still apply)'))),
});

/** Bytes looked at to tell text from binary (and to recognise images by their signature). */
const SAMPLE_BYTES = 8192;

async function sample(abs: string): Promise<Buffer> {
  const fh = await open(abs, 'r');
  try {
    const buf = Buffer.alloc(SAMPLE_BYTES);
    const { bytesRead } = await fh.read(buf, 0, SAMPLE_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** A binary file the model cannot read as text or image: what it is, never its bytes as replacement characters. */
function binaryNote(shown: string, head: Buffer, size: number): string {
  const type = binaryTypeOf(head) ?? (mime.lookup(shown) || 'application/octet-stream');
  return `[binary file ${shown}: ${type}, ${size} bytes; not shown. Read shows text files and PNG, JPEG, GIF and WebP images.]`;
}

/** Text of a file that is not binary: UTF-8, else (a legacy encoding) Latin-1 with a note. */
function decodeText(bytes: Buffer): { text: string; note?: string } {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return { text: bytes.toString('latin1'), note: '[not valid UTF-8: decoded as Latin-1]' };
  }
}

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
  description: 'Reads a file. Text files come back as lines numbered like `cat -n`; use offset/limit (in lines) for long files; output is capped by a character budget. '
    + 'Image files (PNG, JPEG, GIF, WebP, recognised by their content) come back as an image, scaled to fit; the text gives the original size: '
    + 'read back detail with region (a rectangle in the original\'s pixels) or full_resolution=true. Other binary files give a note with their type and size.',
  schema: Input,
  readOnly: true,
  async run(input, ctx) {
    // A tool output saved whole (tool-results.ts) is readable besides the workspace.
    const abs = (await savedOutput(ctx.deps.home, ctx.session.id, input.file_path)) ?? (await ctx.confine(input.file_path)).abs;
    const st = await stat(abs).catch(() => { throw new ToolError(`file not found: ${input.file_path}`); });
    if (st.isDirectory()) throw new ToolError(`${input.file_path} is a directory; use Glob to list files`);
    const head = await sample(abs);
    const shown = input.file_path;
    if (imageFormatOf(head)) return readImage(abs, shown, st.size, input, ctx.config);
    if (input.region !== undefined || input.full_resolution !== undefined) throw new ToolError(`region and full_resolution apply to image files only; ${path.basename(shown)} is not a PNG, JPEG, GIF or WebP image`);
    if (looksBinary(head)) return binaryNote(shown, head, st.size);
    const { text, note } = decodeText(await readFile(abs));
    if (text === '') return '[empty file]';
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    const offset = input.offset ?? 1;
    if (offset > lines.length) throw new ToolError(`offset ${offset} is past the end of the file (${lines.length} lines)`);
    const { default_max_chars, max_chars } = ctx.config.read;
    const budget = Math.min(input.max_chars ?? default_max_chars, max_chars);
    if (!note) return renderLines(lines, offset, input.limit ?? lines.length, budget);
    return `${note}\n${renderLines(lines, offset, input.limit ?? lines.length, Math.max(1, budget - note.length - 1))}`;
  },
});
