import type { Journal } from '../../journal/journal.ts';
import { filePartText } from '../media/file-part.ts';
import { RequestMedia, type MediaModel, type ModelMediaFiles } from '../media/model-media.ts';
import type { AssistantMessage, ImagePart, ModelMessage, TextPart, ToolResultPart, VideoPart } from '../providers/wire/types.ts';
import { applyTruncations } from './compaction/plan.ts';
import type { CompactionCompletedPayload, SessionUndonePayload } from '../../protocol/events/compaction.ts';
import { survivors, undoOf } from '../../projections/undo.ts';
import type { ContentPart, Message, MessageCreatedPayload } from '../../protocol/events/turns.ts';
import { known } from '../../protocol/events/known.ts';

const PAGE = 1000;

/**
 * Folds one journal event into an agent's model context, as the runtime changed it live:
 * messages append; `compaction.completed` drops the replaced leading messages (and cuts the
 * kept tool results it names) and its summary goes first; `session.undone` drops the undone suffix (docs/compaction-undo.md).
 */
export function replayContext(messages: Message[], e: { type: string; payload: any }, agentId: string): void {
  if ((e.payload?.agent_id ?? 'main') !== agentId) return;
  if (known(e).type === 'message.created') {
    const m = (e.payload as MessageCreatedPayload).message;
    if (m.metadata?.compaction) messages.unshift(m);
    else messages.push(m);
  } else if (known(e).type === 'compaction.completed') {
    const p = e.payload as CompactionCompletedPayload;
    messages.splice(0, p.replaced_messages);
    applyTruncations(messages, p.truncated_results);
  } else if (known(e).type === 'session.undone') {
    const kept = survivors(messages, undoOf(e.payload as SessionUndonePayload), (m) => m.id);
    messages.splice(0, messages.length, ...kept);
  }
}

/**
 * The model context of one agent (default the main agent: from its last compaction, undone
 * turns left out) and every event of the session's journal, oldest first (read once, when a
 * runtime is created).
 */
export async function loadMessages(journal: Journal, sessionId: string, agentId = 'main'): Promise<{ messages: Message[]; events: Array<{ type: string; payload: any }> }> {
  const messages: Message[] = [];
  const events: Array<{ type: string; payload: any }> = [];
  for (let from = 1; ; ) {
    const batch = await journal.readRange(sessionId, from, undefined, PAGE);
    for (const e of batch) {
      events.push({ type: e.type, payload: e.payload });
      replayContext(messages, e, agentId);
    }
    if (batch.length < PAGE) break;
    from = batch[batch.length - 1]!.seq + 1;
  }
  return { messages, events };
}

/**
 * Where a request's media is read from (the session's committed media, then staged uploads) and
 * the model it goes to: images only to `image_in` models, fitted to `[image] max_edge_px` and the
 * protocol's limits (src/media/model-media.ts). Without `model`, the strictest limits apply and
 * images are sent.
 */
export interface MediaSource { files: ModelMediaFiles; sessionId: string; model?: MediaModel }

type UserParts = Array<TextPart | ImagePart | VideoPart>;

async function userContent(parts: ContentPart[], media: MediaSource, request: RequestMedia): Promise<UserParts> {
  const out: UserParts = [];
  for (const p of parts) {
    if (p.type === 'text') out.push({ type: 'text', text: p.text });
    else if (p.type === 'image') request.image(p, out);
    else if (p.type === 'video') request.video(p, out);
    else if (p.type === 'file') out.push({ type: 'text', text: await filePartText(media.files, media.sessionId, p) });
  }
  return out.length ? out : [{ type: 'text', text: '' }];
}

function assistantContent(parts: ContentPart[]): AssistantMessage['content'] {
  const out: AssistantMessage['content'] = [];
  for (const p of parts) {
    if (p.type === 'text') out.push({ type: 'text', text: p.text });
    else if (p.type === 'thinking') out.push({ type: 'thinking', text: p.thinking, ...(p.meta ? { meta: p.meta } : {}) });
    else if (p.type === 'tool_use') out.push({ type: 'tool_use', id: p.id, name: p.name, input: p.input, ...(p.meta ? { meta: p.meta } : {}) });
  }
  return out;
}

/**
 * A tool result as the model reads it: text, or text and images (Read of an image file, MCP image
 * results) as `{type:'image', source}` parts. Other parts are passed as their JSON text.
 */
function toolContent(parts: ContentPart[], request: RequestMedia): ToolResultPart[] {
  return parts.flatMap((p): ToolResultPart[] => {
    if (p.type !== 'tool_result') return [];
    const base = { type: 'tool_result' as const, tool_use_id: p.tool_use_id, name: p.name ?? 'unknown', ...(p.is_error ? { is_error: true } : {}) };
    if (typeof p.content === 'string') return [{ ...base, content: p.content }];
    if (!Array.isArray(p.content)) return [{ ...base, content: JSON.stringify(p.content) }];
    const content: UserParts = [];
    for (const c of p.content as Array<Record<string, any>>) {
      if (c?.type === 'text') content.push({ type: 'text', text: String(c.text ?? '') });
      else if (c?.type === 'image') request.image(c, content);
      else content.push({ type: 'text', text: JSON.stringify(c) });
    }
    // Tool results carry no video on any protocol: a video part stays its JSON text above.
    return [{ ...base, content: content as Array<TextPart | ImagePart> }];
  });
}

/** The model's view of the session history. */
export async function toModelMessages(messages: Message[], media: MediaSource): Promise<ModelMessage[]> {
  const out: ModelMessage[] = [];
  const request = new RequestMedia(media.files, media.sessionId, media.model);
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', content: await userContent(m.content, media, request) });
    else if (m.role === 'assistant') {
      // Partial output of a cancelled or retried attempt is history for the user, not context for the model.
      if (m.metadata?.interrupted) continue;
      const content = assistantContent(m.content);
      if (content.length) out.push({ role: 'assistant', content });
    } else if (m.role === 'tool') out.push({ role: 'tool', content: toolContent(m.content, request) });
  }
  await request.resolve();
  return out;
}

/**
 * Tokens one image costs in the estimate, whatever its size: about what Anthropic charges for an image
 * at the size it scales every image down to (~1.15 megapixels); OpenAI's high detail is lower. The
 * journaled part is a short reference, so its characters alone would count an image as almost nothing.
 */
export const IMAGE_TOKENS = 1600;

function imagesIn(parts: unknown): number {
  if (!Array.isArray(parts)) return 0;
  let n = 0;
  for (const p of parts as Array<{ type?: string; content?: unknown }>) {
    if (p?.type === 'image') n++;
    else if (p?.type === 'tool_result') n += imagesIn(p.content);
  }
  return n;
}

/** Characters of the history, for the token estimate (about 4 per token), plus IMAGE_TOKENS per image. */
export function estimateTokens(messages: Message[]): number {
  let chars = 0;
  let images = 0;
  for (const m of messages) {
    chars += JSON.stringify(m.content).length;
    images += imagesIn(m.content);
  }
  return Math.ceil(chars / 4) + images * IMAGE_TOKENS;
}
