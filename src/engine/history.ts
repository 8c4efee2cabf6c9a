import type { Journal } from '../../journal/journal.ts';
import { filePartText, type MediaFiles } from '../media/file-part.ts';
import { findSessionMedia } from '../media/session-media.ts';
import { readFile } from 'node:fs/promises';
import type { AssistantMessage, ImagePart, ModelMessage, TextPart, ToolResultPart } from '../providers/wire/types.ts';
import { CompactionEvents } from './compaction/events.ts';
import type { CompactionCompletedPayload, SessionUndonePayload } from '../../protocol/events/compaction.ts';
import { survivors, undoOf } from '../../projections/undo.ts';
import { EngineEvents } from './events.ts';
import type { ContentPart, Message, MessageCreatedPayload } from '../../protocol/events/turns.ts';

const PAGE = 1000;

/**
 * Folds one journal event into an agent's model context, as the runtime changed it live:
 * messages append; `compaction.completed` drops the replaced leading messages and its
 * summary goes first; `session.undone` drops the undone suffix (docs/compaction-undo.md).
 */
export function replayContext(messages: Message[], e: { type: string; payload: any }, agentId: string): void {
  if ((e.payload?.agent_id ?? 'main') !== agentId) return;
  if (e.type === EngineEvents.messageCreated) {
    const m = (e.payload as MessageCreatedPayload).message;
    if (m.metadata?.compaction) messages.unshift(m);
    else messages.push(m);
  } else if (e.type === CompactionEvents.completed) {
    messages.splice(0, (e.payload as CompactionCompletedPayload).replaced_messages);
  } else if (e.type === CompactionEvents.undone) {
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

/** Where a turn reads prompt media from: the session's committed media, then staged uploads. */
export interface MediaSource { files: MediaFiles; sessionId: string }

async function mediaBytes(src: MediaSource, fileId: string, kind: 'session_media' | 'file'): Promise<ImagePart> {
  const committed = await findSessionMedia(src.files, src.sessionId, fileId);
  if (committed) return { type: 'image', data: (await readFile(committed.path)).toString('base64'), mediaType: committed.meta.media_type };
  if (kind === 'session_media') throw new Error(`session media ${fileId} is gone`);
  // A prompt accepted before uploads were committed to the session.
  const up = await src.files.uploads.lookup(fileId);
  return { type: 'image', data: (await readFile(up.path)).toString('base64'), mediaType: up.meta.media_type };
}

async function imageOf(part: { source?: any }, media: MediaSource): Promise<ImagePart | TextPart> {
  const s = part.source ?? {};
  try {
    if (s.kind === 'base64') return { type: 'image', data: String(s.data), mediaType: String(s.media_type) };
    if (s.kind === 'url') return { type: 'image', data: String(s.url), mediaType: 'image/*' };
    if (s.kind === 'file' || s.kind === 'session_media') return await mediaBytes(media, String(s.file_id), s.kind);
  } catch {
    // Media deleted or expired since the prompt was accepted: say so instead of failing the turn.
  }
  return { type: 'text', text: `[image unavailable: ${String(s.file_id ?? s.url ?? 'unknown')}]` };
}

async function userContent(parts: ContentPart[], media: MediaSource): Promise<Array<TextPart | ImagePart>> {
  const out: Array<TextPart | ImagePart> = [];
  for (const p of parts) {
    if (p.type === 'text') out.push({ type: 'text', text: p.text });
    else if (p.type === 'image') out.push(await imageOf(p, media));
    else if (p.type === 'video') out.push({ type: 'text', text: '[video attachment not supported by this model interface]' });
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

/** A tool result as the model reads it: text, or text and images (MCP image results) as image parts. */
async function toolContent(parts: ContentPart[], media: MediaSource): Promise<ToolResultPart[]> {
  const out: ToolResultPart[] = [];
  for (const p of parts) {
    if (p.type !== 'tool_result') continue;
    const base = { type: 'tool_result' as const, tool_use_id: p.tool_use_id, name: p.name ?? 'unknown', ...(p.is_error ? { is_error: true } : {}) };
    if (typeof p.content === 'string' || !Array.isArray(p.content)) {
      out.push({ ...base, content: typeof p.content === 'string' ? p.content : JSON.stringify(p.content) });
      continue;
    }
    const content: Array<TextPart | ImagePart> = [];
    for (const c of p.content as Array<Record<string, any>>) {
      if (c?.type === 'text') content.push({ type: 'text', text: String(c.text ?? '') });
      else if (c?.type === 'image') content.push(await imageOf(c, media));
      else content.push({ type: 'text', text: JSON.stringify(c) });
    }
    out.push({ ...base, content });
  }
  return out;
}

/** The model's view of the session history. */
export async function toModelMessages(messages: Message[], media: MediaSource): Promise<ModelMessage[]> {
  const out: ModelMessage[] = [];
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', content: await userContent(m.content, media) });
    else if (m.role === 'assistant') {
      // Partial output of a cancelled or retried attempt is history for the user, not context for the model.
      if (m.metadata?.interrupted) continue;
      const content = assistantContent(m.content);
      if (content.length) out.push({ role: 'assistant', content });
    } else if (m.role === 'tool') out.push({ role: 'tool', content: await toolContent(m.content, media) });
  }
  return out;
}

/** Characters of the history, for the token estimate (about 4 per token). */
export function estimateTokens(messages: Message[]): number {
  let chars = 0;
  for (const m of messages) chars += JSON.stringify(m.content).length;
  return Math.ceil(chars / 4);
}
