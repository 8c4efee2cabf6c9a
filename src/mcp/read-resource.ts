import * as v from 'valibot';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolImage, ToolOutcome } from '../engine/tools.ts';
import type { ToolSpec } from '../providers/wire/types.ts';
import { b64Bytes, mediaPiece, type ResultSite } from './results.ts';

/** The tool that reads a resource of a session's MCP server (a resource link a tool returned, or a known URI). */
export const READ_MCP_RESOURCE = 'ReadMcpResource';

const Input = v.strictObject({
  server: v.pipe(v.string(), v.minLength(1)),
  uri: v.pipe(v.string(), v.minLength(1)),
  offset: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  max_chars: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
});
export type ReadResourceInput = v.InferOutput<typeof Input>;

/** The tool as offered: `server` is one of the session's connected servers that offer resources. */
export function readResourceSpec(servers: string[]): ToolSpec {
  return {
    name: READ_MCP_RESOURCE,
    description: 'Reads a resource of a connected MCP server by its URI (for example a resource link a tool returned). '
      + 'Text is capped by a character budget like Read; use offset (in characters) to continue. Images and audio are returned as media.',
    inputSchema: {
      type: 'object',
      properties: {
        server: { type: 'string', enum: servers, description: 'The MCP server that holds the resource' },
        uri: { type: 'string', description: 'The resource URI' },
        offset: { type: 'integer', minimum: 0, description: 'Character of the text to start from (default 0)' },
        max_chars: { type: 'integer', minimum: 1, description: 'Character budget of the text (capped by [read] max_chars)' },
      },
      required: ['server', 'uri'],
      additionalProperties: false,
    },
  };
}

export function parseReadResource(input: unknown): ReadResourceInput | string {
  const r = v.safeParse(Input, input);
  return r.success ? r.output : `invalid input for ${READ_MCP_RESOURCE}: ${r.issues.map((i) => `${v.getDotPath(i) ?? '(input)'}: ${i.message}`).join('; ')}`;
}

/**
 * A `resources/read` result as a tool result: each text content under its URI, the text from `offset`
 * within `budget` characters (a note says where to continue), images passed on as images (with a note),
 * audio saved to a file, other binary content described by type and size.
 */
export async function resourceOutcome(r: ReadResourceResult, input: ReadResourceInput, budget: number, site: ResultSite): Promise<ToolOutcome> {
  const texts: string[] = [];
  const notes: string[] = [];
  const images: ToolImage[] = [];
  let n = 0;
  for (const c of r.contents) {
    const mime = c.mimeType ? ` ${c.mimeType}` : '';
    if ('text' in c && typeof c.text === 'string') texts.push(r.contents.length > 1 ? `[resource ${c.uri}${mime}]\n${c.text}` : c.text);
    else if ('blob' in c && typeof c.blob === 'string') {
      const kind = c.mimeType?.startsWith('image/') ? 'image' : c.mimeType?.startsWith('audio/') ? 'audio' : undefined;
      const piece = kind ? await mediaPiece(kind, c.mimeType!, c.blob, site, ` ${c.uri}`, () => ++n) : undefined;
      notes.push(piece?.text ?? `[resource ${c.uri}${mime}, ${b64Bytes(c.blob)} bytes]`);
      if (piece?.image) images.push(piece.image);
    }
  }
  const all = texts.join('\n');
  const offset = input.offset ?? 0;
  const end = Math.min(all.length, offset + budget);
  let text = all.slice(offset, end);
  if (offset > 0 && offset >= all.length) text = `[offset ${offset} is past the end of the text (${all.length} characters)]`;
  else if (end < all.length) text += `\n[truncated at the character budget: showed characters ${offset}-${end} of ${all.length}; continue with offset=${end}]`;
  if (!r.contents.length) text = '[the resource has no contents]';
  const content = [text, ...notes].filter(Boolean).join('\n');
  return { content, is_error: false, ...(images.length ? { images } : {}) };
}
