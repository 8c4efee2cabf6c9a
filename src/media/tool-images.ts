import type { ContentPart } from '../../protocol/events/turns.ts';
import type { Logger } from '../lib/logger.ts';
import type { ToolOutcome } from '../engine/tools.ts';
import { storeSessionMediaBytes, type MediaStore } from './session-media.ts';

type ToolResultContent = Extract<ContentPart, { type: 'tool_result' }>['content'];

/**
 * The journaled content of a tool result: its text, or (when the tool returned images) the text
 * and one `{type:'image', source:{kind:'session_media', file_id, media_type}}` part per image,
 * each stored as session media first, so no base64 reaches the journal and a client can fetch
 * the image from GET /sessions/{id}/media/{file_id}. An image that cannot be stored becomes a
 * note: the result itself is never lost.
 */
export async function toolResultContent(store: MediaStore & { log?: Logger }, sessionId: string, out: ToolOutcome): Promise<ToolResultContent> {
  if (!out.images?.length) return out.content;
  const parts: Array<Record<string, unknown>> = [{ type: 'text', text: out.content }];
  for (const img of out.images) {
    try {
      const meta = await storeSessionMediaBytes(store, sessionId, img.media_type, img.bytes);
      parts.push({
        type: 'image', source: { kind: 'session_media', file_id: meta.id, media_type: meta.media_type }, ...(img.full_resolution ? { full_resolution: true } : {}),
      });
    } catch (err) {
      store.log?.warn({ err, session_id: sessionId }, 'a tool result image could not be stored');
      parts.push({ type: 'text', text: `[image not kept: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}]` });
    }
  }
  return parts;
}
