import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { ToolImage, ToolOutcome } from '../engine/tools.ts';
import { decodeBase64, MEDIA_TYPE_RE } from '../media/session-media.ts';
import { capToolText, saveToolBytes, saveToolOutput, TOOL_RESULT_CAP } from '../tools/tool-results.ts';

/** Where one call's result goes: its session's saved outputs. */
export interface ResultSite {
  home: string;
  sessionId: string;
  toolCallId: string;
  /** The server the result came from (named in resource links, for ReadMcpResource). */
  server: string;
  /** Characters of text one result may carry (TOOL_RESULT_CAP). */
  cap?: number;
}

/** Bytes a base64 string decodes to. */
export const b64Bytes = (s: string) => Math.floor((s.length * 3) / 4) - (s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0);

/** A content block as text (or a note) and, for an image, the image the model gets with the text. */
export interface Piece { text: string; image?: ToolImage }

/**
 * An MCP tool result as the tool result the model and the transcript get (docs/mcp.md "Tools"): text
 * blocks as they are; images (also embedded image resources) as a note plus the image itself, which the
 * turn stores as session media and the model receives as an image part; audio saved to a file the note
 * names (no protocol here carries audio in a tool result); an embedded text resource with its URI;
 * other binary content and resource links described; structured content as JSON only when the result
 * has no content blocks (servers send its serialization as text too); `isError` as a failed call. Text
 * over the cap is saved whole and replaced by a preview and the file's path.
 */
export async function toToolOutcome(r: CallToolResult, site: ResultSite): Promise<ToolOutcome> {
  const pieces: Piece[] = [];
  let n = 0;
  for (const c of r.content ?? []) pieces.push(await pieceOf(c, site, () => ++n));
  if (!pieces.length && r.structuredContent !== undefined) pieces.push({ text: JSON.stringify(r.structuredContent) });
  // Old servers answer `toolResult` instead of `content`.
  if (!pieces.length && 'toolResult' in r) pieces.push({ text: JSON.stringify((r as unknown as { toolResult: unknown }).toolResult) });
  const text = pieces.map((p) => p.text).join('\n');
  const content = await capToolText(text, site.cap ?? TOOL_RESULT_CAP, (all) => saveToolOutput(site.home, site.sessionId, site.toolCallId, all));
  const images = pieces.flatMap((p) => (p.image ? [p.image] : []));
  return { content, is_error: r.isError === true, ...(images.length ? { images } : {}) };
}

async function pieceOf(c: ContentBlock, site: ResultSite, nth: () => number): Promise<Piece> {
  switch (c.type) {
    case 'text':
      return { text: c.text };
    case 'image':
    case 'audio':
      return mediaPiece(c.type, c.mimeType, c.data, site, '', nth);
    case 'resource': {
      const res = c.resource as { uri: string; mimeType?: string; text?: string; blob?: string };
      if (typeof res.text === 'string') return { text: `[resource ${res.uri}]\n${res.text}` };
      const kind = res.mimeType?.startsWith('image/') ? 'image' : res.mimeType?.startsWith('audio/') ? 'audio' : undefined;
      if (kind && res.blob) return mediaPiece(kind, res.mimeType!, res.blob, site, ` ${res.uri}`, nth);
      return { text: `[resource ${res.uri}${res.mimeType ? ` ${res.mimeType}` : ''}, ${b64Bytes(res.blob ?? '')} bytes]` };
    }
    case 'resource_link':
      return { text: `[resource link ${c.name ? `${c.name} ` : ''}${c.uri}${c.mimeType ? ` ${c.mimeType}` : ''}; ReadMcpResource {"server": "${site.server}", "uri": "${c.uri}"} reads it]` };
    default:
      return { text: `[${(c as { type: string }).type} content]` };
  }
}

/** An image (passed on as an image) or an audio clip (saved to a file); bytes that do not decode stay a note. */
export async function mediaPiece(kind: 'image' | 'audio', mimeType: string, data: string, site: ResultSite, label: string, nth: () => number): Promise<Piece> {
  const note = `[${kind}${label} ${mimeType}, ${b64Bytes(data)} bytes`;
  const bytes = MEDIA_TYPE_RE.test(mimeType) ? decodeBase64(data) : undefined;
  if (!bytes) return { text: `${note}]` };
  if (kind === 'image') return { text: `${note}]`, image: { bytes, media_type: mimeType } };
  const file = await saveToolBytes(site.home, site.sessionId, `${site.toolCallId}-${nth()}`, mimeType, bytes);
  return { text: `${note}, saved at ${file}]` };
}
