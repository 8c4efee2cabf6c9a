import type { JournalEvent } from '../../journal/types.ts';
import type { ContentPart, Message, PayloadOf } from '../contract.ts';
import { steerOrigin } from './records-origin.ts';
import {
  marker, mergeMeta, putFrame, side, stepIdOf, stepOf, toolFrameId, turnOf, upsertStep, upsertTurn, type TextLike,
} from './records-write.ts';
import { isActivationText } from './state.ts';
import { recAgent, type OpsOut, type RecAgent, type RecAttachment, type RecFrame, type RecordsState, type RecStep, type RecTurn } from './records-state.ts';

// The turn lifecycle of the client records (spec/clients.md B2-B3): prompts, turns, steps and their frames, from
// prompt.accepted to turn.ended.

/** Our summary keys of `meta` (turns, usage, compactions, model, last_turn_reason), recomputed from the turns. */
export function summary(a: RecAgent, compactions: number): Record<string, unknown> {
  const usage = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0 };
  const turns = a.items.filter((i): i is RecTurn => i.kind === 'turn');
  // A live fold's turns left out (records-trim.ts) still count.
  const out = a.trimmed;
  if (out) {
    usage.input_tokens += out.inputTokens;
    usage.output_tokens += out.outputTokens;
    usage.cache_read_tokens += out.cachedTokens;
  }
  for (const t of turns) {
    usage.input_tokens += t.usage?.inputTokens ?? 0;
    usage.output_tokens += t.usage?.outputTokens ?? 0;
    usage.cache_read_tokens += t.usage?.cachedTokens ?? 0;
  }
  const last = turns.at(-1);
  const reason = last && last.state !== 'running' && last.state !== 'queued' ? last.state : undefined;
  return { turns: turns.length + (out?.turns ?? 0), usage, compactions, ...(last?.model ? { model: last.model } : {}), ...(reason ? { last_turn_reason: reason } : {}) };
}

export function promptText(content: ContentPart[]): string {
  return content.flatMap((p) => (p.type === 'text' && !isActivationText(p.text) ? [p.text] : [])).join('\n');
}

export function attachmentsOf(s: RecordsState, o: OpsOut, agentId: string, content: ContentPart[]): string[] {
  const a = recAgent(s, agentId);
  const ids: string[] = [];
  for (const p of content) {
    const src = p.type === 'image' ? (p.source as { kind?: string; file_id?: string; media_type?: string } | undefined) : undefined;
    const att: RecAttachment | undefined = p.type === 'file'
      ? { attachmentId: p.file_id, mediaType: p.media_type, name: p.name, size: p.size, source: { kind: 'file' as const, fileId: p.file_id } }
      : src?.file_id && (src.kind === 'file' || src.kind === 'session_media')
        ? { attachmentId: src.file_id, mediaType: src.media_type ?? 'image/*', source: { kind: src.kind as 'file' | 'session_media', fileId: src.file_id } }
        : undefined;
    if (!att) continue;
    ids.push(att.attachmentId);
    a.attachments.set(att.attachmentId, att);
    o.emit(agentId, { op: 'attachment.upsert', attachment: { ...att } });
  }
  return ids;
}

export function setPrompt(s: RecordsState, o: OpsOut, agentId: string, promptId: string, patch: Record<string, unknown>): void {
  const a = recAgent(s, agentId);
  const p = a.prompts.get(promptId);
  if (!p) return;
  Object.assign(p, patch);
  o.emit(agentId, { op: 'prompt.upsert', prompt: { ...p } });
}

export function turnStarted(s: RecordsState, o: OpsOut, p: PayloadOf<'turn.started'>, e: JournalEvent, origin: RecTurn['origin']): void {
  const agentId = p.agent_id ?? 'main';
  const a = recAgent(s, agentId);
  const ordinal = a.nextOrdinal++;
  const text = a.promptText.get(p.prompt_id);
  // Read once, by the turn the prompt starts: the turn keeps the text (a fold of many turns held both).
  a.promptText.delete(p.prompt_id);
  const turn: RecTurn = {
    kind: 'turn', turnId: `t${ordinal}`, ordinal, state: 'running',
    origin,
    ...(a.prompts.has(p.prompt_id) ? { triggerPromptId: p.prompt_id } : {}),
    ...(text ? { prompt: text.text, ...(text.attachmentIds.length ? { attachmentIds: text.attachmentIds } : {}) } : {}),
    steps: [], startedAt: p.started_at, turn_id: p.turn_id, model: p.model,
  };
  a.items.push(turn);
  a.turns.set(turn.turnId, turn);
  a.byEngineTurn.set(p.turn_id, turn);
  a.engineTurn.set(turn.turnId, p.turn_id);
  const opening = a.prompts.get(p.prompt_id)?.userMessageId;
  if (opening) a.opening.set(turn.turnId, opening);
  upsertTurn(s, o, agentId, turn);
  mergeMeta(s, o, agentId, { activity: 'turn', agent: { model: p.model } });
  setPrompt(s, o, agentId, p.prompt_id, { status: 'running' });
  for (const id of p.prompt_ids) setPrompt(s, o, agentId, id, { status: 'completed', steeredAt: e.ts });
}

export function stepStarted(s: RecordsState, o: OpsOut, p: PayloadOf<'turn.step.started'>, e: JournalEvent): void {
  const agentId = p.agent_id ?? 'main';
  const a = recAgent(s, agentId);
  const t = turnOf(a, p.turn_id);
  if (!t) return;
  let st = stepOf(t, p.step);
  if (!st) {
    st = { kind: 'step', stepId: stepIdOf(t.turnId, p.step), turnId: t.turnId, ordinal: p.step, state: 'running', frames: [], startedAt: e.ts };
    t.steps.push(st);
  } else {
    Object.assign(st, { state: 'running' });
  }
  upsertStep(s, o, agentId, t, st);
  const pending = a.pendingUser.get(t.turnId);
  a.pendingUser.delete(t.turnId);
  for (const f of pending ?? []) putFrame(s, o, agentId, t, st, { ...f, frameId: `${st.stepId}.f${++side(a, st.stepId).frames}` });
}

/** The step's text and thinking parts claim the frames their deltas opened, in order; the others get new frames. */
function assistantMessage(s: RecordsState, o: OpsOut, agentId: string, t: RecTurn, m: Message): void {
  const a = recAgent(s, agentId);
  const st = t.steps.at(-1);
  if (!st) return;
  const sd = side(a, st.stepId);
  sd.open = undefined;
  for (const part of m.content) {
    if (part.type === 'text' || part.type === 'thinking') {
      const kind = part.type;
      const text = part.type === 'text' ? part.text : part.thinking;
      const claimed = sd.unclaimed[0]?.kind === kind ? sd.unclaimed.shift() : undefined;
      const frame: TextLike = claimed
        ? { ...claimed, text }
        : kind === 'text'
          ? { kind, frameId: `${st.stepId}.f${++sd.frames}`, role: 'assistant', text }
          : { kind, frameId: `${st.stepId}.f${++sd.frames}`, text };
      // Always sent, equal or not: grades below delta never saw the streamed text (C2 "step completed").
      putFrame(s, o, agentId, t, st, frame);
    } else if (part.type === 'tool_use') {
      const prev = a.tools.get(part.id);
      const base = prev?.step.frames.find((f) => f.kind === 'tool' && f.toolCallId === part.id);
      const frame: RecFrame = {
        ...(base ?? {}), kind: 'tool', frameId: toolFrameId(st.stepId, part.id), toolCallId: part.id, name: part.name,
        state: base?.kind === 'tool' ? base.state : 'running', input: part.input, inputText: JSON.stringify(part.input ?? {}),
      };
      a.tools.set(part.id, { turn: t, step: prev?.step ?? st });
      putFrame(s, o, agentId, t, prev?.step ?? st, frame);
    }
  }
  sd.unclaimed = [];
}

export function messageCreated(s: RecordsState, o: OpsOut, p: PayloadOf<'message.created'>): void {
  const agentId = p.agent_id ?? 'main';
  const a = recAgent(s, agentId);
  const t = turnOf(a, p.turn_id);
  if (!t) return;
  const m = p.message;
  if (m.role === 'assistant') return assistantMessage(s, o, agentId, t, m);
  if (m.role !== 'user' || m.metadata?.compaction) return;
  // The message that opened the turn is the turn's `prompt`; later ones (steers, task notes) are user frames.
  if (!t.steps.length && !a.pendingUser.has(t.turnId) && (m.prompt_id === t.triggerPromptId || !t.triggerPromptId)) {
    if (!a.opening.has(t.turnId)) a.opening.set(t.turnId, m.id);
    if (t.prompt === undefined) {
      t.prompt = promptText(m.content);
      upsertTurn(s, o, agentId, t);
    }
    return;
  }
  const note = m.metadata?.task_notification as { task_id?: string } | undefined;
  const frame: RecFrame = {
    kind: 'text', frameId: '', role: 'user', text: promptText(m.content),
    ...(m.prompt_id ? { promptIds: [m.prompt_id] } : {}), ...(note?.task_id ? { taskId: note.task_id } : {}),
    ...(m.prompt_id && a.prompts.has(m.prompt_id) ? { origin: steerOrigin(a.prompts.get(m.prompt_id)!) } : {}),
  };
  a.pendingUser.set(t.turnId, [...(a.pendingUser.get(t.turnId) ?? []), frame]);
}

export function stepEnded(s: RecordsState, o: OpsOut, agentId: string, t: RecTurn, st: RecStep, patch: Partial<RecStep>): void {
  Object.assign(st, patch);
  upsertStep(s, o, agentId, t, st);
}

export function turnEnded(s: RecordsState, o: OpsOut, p: PayloadOf<'turn.ended'>, e: JournalEvent, compactions: number): void {
  const agentId = p.agent_id ?? 'main';
  const a = recAgent(s, agentId);
  const t = turnOf(a, p.turn_id);
  if (!t) return;
  const pending = a.pendingUser.get(t.turnId);
  const last = t.steps.at(-1);
  a.pendingUser.delete(t.turnId);
  a.pendingProgress.clear();
  if (last) for (const f of pending ?? []) putFrame(s, o, agentId, t, last, { ...f, frameId: `${last.stepId}.f${++side(a, last.stepId).frames}` });
  for (const st of t.steps) {
    a.steps.delete(st.stepId);
    if (st.state === 'running') stepEnded(s, o, agentId, t, st, { state: p.reason === 'completed' ? 'completed' : 'interrupted', endReason: p.reason, endedAt: p.ended_at });
  }
  const started = Date.parse(t.startedAt ?? '');
  Object.assign(t, {
    state: p.reason, endedAt: p.ended_at,
    ...(Number.isFinite(started) ? { durationMs: Math.max(0, Date.parse(p.ended_at) - started) } : {}),
    ...(p.error ? { error: p.error.message } : {}),
    usage: { inputTokens: p.usage.input_tokens, outputTokens: p.usage.output_tokens, cachedTokens: p.usage.cache_read_tokens },
  });
  upsertTurn(s, o, agentId, t);
  compactTurn(t);
  const status = p.reason === 'completed' ? 'completed' : p.error?.kind === 'hook_blocked' ? 'blocked' : p.reason === 'failed' ? 'failed' : 'aborted';
  setPrompt(s, o, agentId, p.prompt_id, { status, finishedAt: p.ended_at });
  if (p.reason === 'failed' && p.error) {
    marker(s, o, agentId, 'notice', { level: 'error', message: p.error.message, event: { code: p.error.kind, name: p.error.kind, retryable: false, details: p.error.status ? { statusCode: p.error.status } : {} } }, e.ts);
  }
  if (p.reason === 'cancelled') marker(s, o, agentId, 'interruption', { turnId: t.turnId, reason: 'cancelled' }, e.ts);
  mergeMeta(s, o, agentId, { activity: 'idle', ...summary(a, compactions) });
}

/**
 * An ended turn's step and frame arrays copied at their length: an array grown by push keeps a backing store of
 * 17 slots for one element (152 bytes), and a live fold holds every turn of its sessions (docs/benchmarks.md
 * "Session 7 — stream-load memory, second pass"). Records reach them through `turn.steps` / `step.frames` only,
 * so a later frame (a tool result after the turn) lands in the copy.
 */
function compactTurn(t: RecTurn): void {
  t.steps = t.steps.slice();
  for (const st of t.steps) st.frames = st.frames.slice();
}
