import type { AttachmentRec, ContentPart, PayloadOf } from '../contract.ts';
import { survivors, undoOf } from '../undo.ts';
import { agentIdOf, agentState, type AgentState, type Family, type UserEntry } from './state.ts';

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

function run(a: AgentState, promptId: string, turnId: string, at?: string): void {
  const e = a.byPrompt.get(promptId);
  if (!e) return;
  e.turn_id = turnId;
  e.state = 'running';
  if (at) e.started_at = at;
}

/** A user-role message that is not a prompt's own (those come with prompt.accepted). */
function userMessage(a: AgentState, p: PayloadOf<'message.created'>): void {
  const m = p.message;
  if (m.role !== 'user' || a.byMessage.has(m.id) || m.metadata?.compaction) return;
  const origin = m.metadata?.task_notification ? 'task_notification' : p.agent_id !== 'main' && p.turn_id && !a.users.length ? 'subagent_prompt' : 'user';
  const turn = p.turn_id ? a.byTurn.get(p.turn_id) : undefined;
  addEntry(a, {
    message_id: m.id, origin, content: m.content, turn_id: turn?.turn_id ?? null, state: 'completed',
    ...(turn ? { started_at: turn.started_at } : {}),
  });
}

/** The user messages of each agent and their attachments (GET /transcript/user-messages, `attachments`). */
export const users = {
  'prompt.accepted': (s, p) => addEntry(agentState(s, agentIdOf(p)), {
    message_id: p.user_message_id, prompt_id: p.prompt_id, origin: p.source === 'task' ? 'task_notification' : 'user', content: p.content, turn_id: null, state: 'queued',
  }),
  'turn.started': (s, p) => {
    const a = agentState(s, agentIdOf(p));
    for (const id of [p.prompt_id, ...(p.prompt_ids ?? [])]) run(a, id, p.turn_id, p.started_at);
  },
  'prompt.steered': (s, p, e) => {
    const a = agentState(s, agentIdOf(p));
    for (const id of p.prompt_ids) run(a, id, p.turn_id, e.ts);
  },
  'prompt.aborted': (s, p) => {
    const e = agentState(s, agentIdOf(p)).byPrompt.get(p.prompt_id);
    if (e && e.turn_id === null) e.state = 'cancelled';
  },
  'message.created': (s, p) => userMessage(agentState(s, agentIdOf(p)), p),
  // Prompts that activated a skill answer origin `skill`.
  'skill.activated': (s, p) => {
    if (p?.prompt_id) s.skillPrompts.add(p.prompt_id);
  },
  // Prompts that ran a plugin command answer origin `plugin_command`.
  'plugin_command.activated': (s, p) => {
    s.commandPrompts.add(p.prompt_id);
  },
  'session.undone': (s, p) => {
    const undo = undoOf(p);
    const a = agentState(s, undo.agentId);
    a.users = survivors(a.users, undo, (u) => u.message_id);
  },
} satisfies Family;
