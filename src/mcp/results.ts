import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolOutcome } from '../engine/tools.ts';

/** Bytes a base64 string decodes to. */
const b64Bytes = (s: string) => Math.floor((s.length * 3) / 4) - (s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0);

/**
 * An MCP tool result as the tool result the model and the transcript get: text blocks as they are,
 * an embedded text resource with its URI, binary content (images, audio, blobs) described by type
 * and size, structured content as JSON when no text block already carries it, `isError` as a
 * failed call.
 */
export function toToolOutcome(r: CallToolResult): ToolOutcome {
  const parts: string[] = [];
  for (const c of r.content ?? []) {
    switch (c.type) {
      case 'text':
        parts.push(c.text);
        break;
      case 'image':
        parts.push(`[image ${c.mimeType}, ${b64Bytes(c.data)} bytes]`);
        break;
      case 'audio':
        parts.push(`[audio ${c.mimeType}, ${b64Bytes(c.data)} bytes]`);
        break;
      case 'resource': {
        const res = c.resource as { uri: string; mimeType?: string; text?: string; blob?: string };
        if (typeof res.text === 'string') parts.push(`[resource ${res.uri}]\n${res.text}`);
        else parts.push(`[resource ${res.uri}${res.mimeType ? ` ${res.mimeType}` : ''}, ${b64Bytes(res.blob ?? '')} bytes]`);
        break;
      }
      case 'resource_link':
        parts.push(`[resource link ${c.name ? `${c.name} ` : ''}${c.uri}]`);
        break;
      default:
        parts.push(`[${(c as { type: string }).type} content]`);
    }
  }
  if (r.structuredContent !== undefined) {
    const json = JSON.stringify(r.structuredContent);
    if (!parts.some((p) => p.trim() === json || safeEqualJson(p, r.structuredContent))) parts.push(parts.length ? `[structured content]\n${json}` : json);
  }
  // Old servers answer `toolResult` instead of `content`.
  if (!parts.length && 'toolResult' in r) parts.push(JSON.stringify((r as unknown as { toolResult: unknown }).toolResult));
  return { content: parts.join('\n'), is_error: r.isError === true };
}

function safeEqualJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}
