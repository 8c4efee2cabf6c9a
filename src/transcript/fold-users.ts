import type { ContentPart, MessageCreatedPayload, PromptAbortedPayload, PromptAcceptedPayload, PromptSteeredPayload, TurnStartedPayload } from '../events/turns.ts';
import type { AttachmentRec } from '../protocol/schemas/transcript.ts';
import type { AgentState, UserEntry } from './state.ts';

// User messages of one agent: prompts (prompt.accepted) and the other user-role messages
// (a subagent's task prompt, background-task notifications).

/** Attachment metadata of a content part (never bytes); undefined for text or inline media. */
export function attachmentOf(p: ContentPart): AttachmentRec | undefined {
  if (p.type === 'file') return { attachment_id: p.file_id, kind: 'file', name: p.name, media_type: p.media_type, size: p.size };
  const src = p.type === 'image' ? (p.source as { kind?: string; file_id?: string; media_type?: string } | undefined) : undefined;
  if (src?.file_id && (src.kind === 'file' || src.kind === 'session_media')) {
    return { attachment_id: src.file_id, kind: 'image', ...(src.media_type ? { media_type: src.media_type } : {}) };
  }
  return undefined;
}

function addEntry(a: AgentState, e: UserEntry): void {
  a.users.push(e);
  a.byMessage.set(e.message_id, e);
  if (e.prompt_id) a.byPrompt.set(e.prompt_id, e);
  for (const p of e.content) {
    const att = attachmentOf(p);
    if (att) a.attachments.set(att.attachment_id, att);
  }
}

export function promptAccepted(a: AgentState, p: PromptAcceptedPayload): void {
  addEntry(a, { message_id: p.user_message_id, prompt_id: p.prompt_id, origin: 'user', content: p.content, turn_id: null, state: 'queued' });
}

function run(a: AgentState, promptId: string, turnId: string, at?: string): void {
  const e = a.byPrompt.get(promptId);
  if (!e) return;
  e.turn_id = turnId;
  e.state = 'running';
  if (at) e.started_at = at;
}

export function promptsStarted(a: AgentState, p: TurnStartedPayload): void {
  for (const id of [p.prompt_id, ...(p.prompt_ids ?? [])]) run(a, id, p.turn_id, p.started_at);
}

export function promptsSteered(a: AgentState, p: PromptSteeredPayload, at: string): void {
  for (const id of p.prompt_ids) run(a, id, p.turn_id, at);
}

export function promptAborted(a: AgentState, p: PromptAbortedPayload): void {
  const e = a.byPrompt.get(p.prompt_id);
  if (e && e.turn_id === null) e.state = 'cancelled';
}

/** A user-role message that is not a prompt's own (those come with prompt.accepted). */
export function userMessage(a: AgentState, p: MessageCreatedPayload): void {
  const m = p.message;
  if (m.role !== 'user' || a.byMessage.has(m.id) || m.metadata?.compaction) return;
  const origin = m.metadata?.task_notification ? 'task_notification' : p.agent_id !== 'main' && p.turn_id && !a.users.length ? 'subagent_prompt' : 'user';
  const turn = p.turn_id ? a.byTurn.get(p.turn_id) : undefined;
  addEntry(a, {
    message_id: m.id, origin, content: m.content, turn_id: turn?.turn_id ?? null, state: 'completed',
    ...(turn ? { started_at: turn.started_at } : {}),
  });
}
