import type { JournalEvent } from '../../journal/types.ts';
import type { ContentPart, Message, PayloadOf } from '../contract.ts';
import { undoOf } from '../undo.ts';
import { goalMeta, llmTiming, steerOrigin, turnOrigin } from './records-origin.ts';
import { callDisplay, toolDisplay, toolView } from '../../protocol/display.ts';
import { agentIdOf, isActivationText, type Family, type TranscriptState } from './state.ts';
import {
  recAgent, type OpsOut, stepHeader, stepUsage, turnHeader, type RecAgent, type RecAttachment, type RecFrame, type RecInteraction, type RecordsState, type RecStep, type RecTask,
  type RecTurn, type StepSide,
} from './records-state.ts';

// The client records (spec/clients.md B) and the ops that build them (C2), one handler per event. The same
// handlers fold the journal (GET /transcript) and feed the live channel, which also applies the deltas
// (applyDelta): a step's frames get the same ids either way (`<stepId>.f<k>` in the order text and thinking
// start), so the streamed frames are the ones the step's message.created later completes.

type TextLike = RecFrame & { kind: 'text' | 'thinking' };

const stepIdOf = (turnId: string, n: number) => `${turnId}.${n}`;

function side(a: RecAgent, stepId: string): StepSide {
  let sd = a.steps.get(stepId);
  if (!sd) a.steps.set(stepId, (sd = { frames: 0, unclaimed: [] }));
  return sd;
}

function upsertTurn(s: RecordsState, o: OpsOut, agentId: string, t: RecTurn): void {
  o.emit(agentId, { op: 'turn.upsert', turn: turnHeader(t) });
}

function upsertStep(s: RecordsState, o: OpsOut, agentId: string, t: RecTurn, st: RecStep): void {
  o.emit(agentId, { op: 'step.upsert', turnId: t.turnId, step: stepHeader(st) });
}

function putFrame(s: RecordsState, o: OpsOut, agentId: string, t: RecTurn, st: RecStep, f: RecFrame): void {
  if (f.kind === 'tool') {
    // Progress that came before the call's frame (records-live.ts) joins it while the call runs.
    const pending = recAgent(s, agentId).pendingProgress;
    const early = pending.get(f.toolCallId);
    if (early) {
      pending.delete(f.toolCallId);
      if (f.state === 'running' && !f.progress) f = { ...f, progress: early };
    }
  }
  const i = st.frames.findIndex((x) => x.frameId === f.frameId);
  if (i >= 0) st.frames[i] = f;
  else st.frames.push(f);
  o.emit(agentId, { op: 'frame.upsert', turnId: t.turnId, stepId: st.stepId, frame: { ...f } });
}

export function turnOf(a: RecAgent, engineTurnId: string | undefined): RecTurn | undefined {
  return engineTurnId ? a.byEngineTurn.get(engineTurnId) : undefined;
}

function stepOf(t: RecTurn | undefined, n: number): RecStep | undefined {
  return t?.steps.find((x) => x.ordinal === n);
}

export function marker(s: RecordsState, o: OpsOut, agentId: string, name: string, payload: unknown, at: string): void {
  const a = recAgent(s, agentId);
  a.markers += 1;
  const item = { kind: 'marker' as const, markerId: `live-m${a.markers}`, marker: name, payload, at };
  a.items.push(item);
  o.emit(agentId, { op: 'marker.upsert', item: { ...item } });
}

/** `meta.merge` as section C applies it: `goal` null clears, `modes` merged key by key (null clears), `agent` shallow-merged. */
export function mergeMeta(s: RecordsState, o: OpsOut, agentId: string, patch: Record<string, unknown>): void {
  const a = recAgent(s, agentId);
  for (const [k, val] of Object.entries(patch)) {
    if (k === 'goal' && val === null) delete a.meta.goal;
    else if (k === 'modes') {
      const modes: Record<string, unknown> = { ...(a.meta.modes as object | undefined) };
      for (const [mk, mv] of Object.entries(val as Record<string, unknown>)) {
        if (mv === null) delete modes[mk];
        else modes[mk] = mv;
      }
      a.meta.modes = modes;
    } else if (k === 'agent') a.meta.agent = { ...(a.meta.agent as object | undefined), ...(val as object) };
    else a.meta[k] = val;
  }
  o.emit(agentId, { op: 'meta.merge', meta: patch });
}

/** Our summary keys of `meta` (turns, usage, compactions, model, last_turn_reason), recomputed from the turns. */
function summary(a: RecAgent, compactions: number): Record<string, unknown> {
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

function promptText(content: ContentPart[]): string {
  return content.flatMap((p) => (p.type === 'text' && !isActivationText(p.text) ? [p.text] : [])).join('\n');
}

function attachmentsOf(s: RecordsState, o: OpsOut, agentId: string, content: ContentPart[]): string[] {
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

function setPrompt(s: RecordsState, o: OpsOut, agentId: string, promptId: string, patch: Record<string, unknown>): void {
  const a = recAgent(s, agentId);
  const p = a.prompts.get(promptId);
  if (!p) return;
  Object.assign(p, patch);
  o.emit(agentId, { op: 'prompt.upsert', prompt: { ...p } });
}

function turnStarted(s: RecordsState, o: OpsOut, p: PayloadOf<'turn.started'>, e: JournalEvent, origin: RecTurn['origin']): void {
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

function stepStarted(s: RecordsState, o: OpsOut, p: PayloadOf<'turn.step.started'>, e: JournalEvent): void {
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

function messageCreated(s: RecordsState, o: OpsOut, p: PayloadOf<'message.created'>): void {
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

function stepEnded(s: RecordsState, o: OpsOut, agentId: string, t: RecTurn, st: RecStep, patch: Partial<RecStep>): void {
  Object.assign(st, patch);
  upsertStep(s, o, agentId, t, st);
}

function turnEnded(s: RecordsState, o: OpsOut, p: PayloadOf<'turn.ended'>, e: JournalEvent, compactions: number): void {
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

/**
 * A tool frame's id, `<stepId>.<toolCallId>` (spec/clients.md B3), unique within its step: a call id in the form of
 * the step's text and thinking frame ids (`f<k>`), or one starting with `~`, gets a `~` before it. A provider is
 * free to name a call `f1`; its frame then replaced the text the model wrote before the call (`t0.1.f1` both).
 */
export function toolFrameId(stepId: string, toolCallId: string): string {
  return `${stepId}.${/^(?:f\d+$|~)/.test(toolCallId) ? '~' : ''}${toolCallId}`;
}

export function toolFrame(a: RecAgent, toolCallId: string): { turn: RecTurn; step: RecStep; frame: RecFrame & { kind: 'tool' } } | undefined {
  const at = a.tools.get(toolCallId);
  const frame = at?.step.frames.find((f) => f.kind === 'tool' && f.toolCallId === toolCallId);
  return at && frame?.kind === 'tool' ? { ...at, frame } : undefined;
}

/** The tool frame of a call with `patch` applied and the `omit` keys removed (one `frame.upsert`). */
export function patchTool(s: RecordsState, o: OpsOut, agentId: string, toolCallId: string, patch: Record<string, unknown>, omit: readonly string[] = []): void {
  const a = recAgent(s, agentId);
  const at = toolFrame(a, toolCallId);
  if (!at) return;
  const frame: Record<string, unknown> = { ...at.frame, ...patch };
  for (const k of omit) delete frame[k];
  putFrame(s, o, agentId, at.turn, at.step, frame as RecFrame);
}

/** The frame's `display` block and `view` line, from the call's name and parsed input. */
function displayOf(s: RecordsState, name: string, input: unknown): { display?: Record<string, unknown>; view?: string } {
  const display = toolDisplay(name, input, { cwd: s.cwd });
  const view = toolView(name, input);
  return { ...(display ? { display } : {}), ...(view ? { view } : {}) };
}

/**
 * An approval's `request.display` (spec/clients.md B4, F): the block the request journaled (a plan review's plan and
 * options, or the call's block), else the one its call's tool frame gives (older journals kept only the text
 * `tool_input_display`), else that text as a Bash `command` or an `invocation`.
 */
function approvalDisplay(s: RecordsState, a: RecAgent, p: PayloadOf<'event.approval.requested'>): Record<string, unknown> {
  if (p.display) return p.display;
  const input = toolFrame(a, p.tool_call_id)?.frame.input;
  if (input !== undefined) return callDisplay(p.tool_name, input, { cwd: s.cwd });
  if (p.tool_name === 'Bash') return { kind: 'command', command: p.tool_input_display, ...(s.cwd ? { cwd: s.cwd } : {}), language: 'bash' };
  return { kind: 'invocation', name: p.tool_name, description: p.tool_input_display };
}

function toolStarted(s: RecordsState, o: OpsOut, p: PayloadOf<'tool.call.started'>): void {
  const agentId = p.agent_id ?? 'main';
  const a = recAgent(s, agentId);
  const t = turnOf(a, p.turn_id) ?? [...a.turns.values()].at(-1);
  const st = t?.steps.at(-1);
  if (!t || !st) return;
  const at = toolFrame(a, p.tool_call_id);
  const frame: RecFrame = {
    ...(at?.frame ?? {}), kind: 'tool', frameId: at?.frame.frameId ?? toolFrameId(st.stepId, p.tool_call_id), toolCallId: p.tool_call_id, name: p.tool_name,
    state: 'running', input: p.input, ...(p.tool_name === 'TodoWrite' ? { todoId: 'todo' } : {}), ...displayOf(s, p.tool_name, p.input),
  };
  if (!at) a.tools.set(p.tool_call_id, { turn: t, step: st });
  putFrame(s, o, agentId, t, at?.step ?? st, frame);
}

function interaction(s: RecordsState, o: OpsOut, agentId: string, it: RecInteraction): void {
  recAgent(s, agentId).interactions.set(it.interactionId, it);
  o.emit(agentId, { op: 'interaction.upsert', interaction: { ...it } });
}

function resolveInteraction(s: RecordsState, o: OpsOut, agentId: string, id: string, state: RecInteraction['state'], response: unknown): void {
  const it = recAgent(s, agentId).interactions.get(id);
  if (!it) return;
  interaction(s, o, agentId, { ...it, state, response });
  if (it.interactionKind === 'approval' && it.toolCallId) patchTool(s, o, agentId, it.toolCallId, { approvalId: id });
}

const turnOrdinal = (a: RecAgent, engineTurnId: string | undefined) => turnOf(a, engineTurnId)?.ordinal;

const TASK_KIND: Record<string, RecTask['kind']> = { bash: 'shell', subagent: 'subagent', tool: 'tool' };
const TASK_STATE: Record<string, RecTask['state']> = { running: 'running', completed: 'completed', failed: 'failed', cancelled: 'killed' };

function task(s: RecordsState, o: OpsOut, t: PayloadOf<'task.started'>['task'], e: JournalEvent): void {
  // The output tail is the record's `outputTail`, not kept twice.
  const { kind, output_preview: _preview, output_bytes: _bytes, ...rest } = t;
  const rec: RecTask = {
    ...rest, taskId: t.id, kind: TASK_KIND[kind] ?? 'other', state: TASK_STATE[t.status] ?? 'lost',
    // The running tail (records-live.ts appends) until task.terminated carries the durable one.
    detached: kind !== 'subagent', outputTail: t.output_preview ?? s.tasks.get(t.id)?.outputTail ?? '', description: t.description,
    ...(t.agent_id ? { agentId: t.agent_id } : {}), ...(t.started_at ? { startedAt: t.started_at } : {}),
    ...(t.completed_at ? { endedAt: t.completed_at } : {}), ...(t.model ? { model: t.model } : {}),
    ...(t.thinking_effort ? { thinkingEffort: t.thinking_effort } : {}), ...s.taskOutcomes.get(t.id),
  };
  const isNew = !s.tasks.has(t.id);
  s.tasks.set(t.id, rec);
  o.emit('main', { op: 'task.upsert', task: { ...rec } });
  if (!isNew) return;
  const item = { kind: 'taskref' as const, refId: `ref-${t.id}`, taskId: t.id, at: e.ts };
  recAgent(s, 'main').items.push(item);
  o.emit('main', { op: 'taskref.upsert', item: { ...item } });
}

/** `session.undone`: the turns whose opening message it removes leave the items (projections/undo.ts). */
function undone(st: TranscriptState, o: OpsOut, p: PayloadOf<'session.undone'>, e: JournalEvent): void {
  const s = st.rec;
  const undo = undoOf(p);
  const agentId = undo.agentId;
  const a = recAgent(s, agentId);
  const gone = [...a.turns.values()].filter((t) => undo.messageIds.has(a.opening.get(t.turnId) ?? ''));
  if (!gone.length) return;
  const ids = new Set(gone.map((t) => t.turnId));
  a.items = a.items.filter((i) => i.kind !== 'turn' || !ids.has(i.turnId));
  for (const t of gone) {
    a.turns.delete(t.turnId);
    a.byEngineTurn.delete(a.engineTurn.get(t.turnId) ?? '');
    const calls = new Set(t.steps.flatMap((x) => x.frames.flatMap((f) => (f.kind === 'tool' ? [f.toolCallId] : []))));
    for (const [id, it] of a.interactions) if (it.toolCallId && calls.has(it.toolCallId)) a.interactions.delete(id);
    for (const c of calls) a.tools.delete(c);
  }
  o.emit(agentId, { op: 'items.remove', ids: [...ids] });
  marker(s, o, agentId, 'undo', { count: p.count, turnIds: [...ids] }, e.ts);
  mergeMeta(s, o, agentId, summary(a, compactionsOf(st, agentId)));
}

/** The trigger of a compaction, from its `started` marker (clients read `trigger` on every compaction marker, B6). */
function triggerOf(s: RecordsState, agentId: string, compactionId: string): { trigger?: unknown } {
  // From the newest item back: the started marker is near the end, the items are the whole session.
  const items = recAgent(s, agentId).items;
  let started: (typeof items)[number] | undefined;
  for (let i = items.length - 1; i >= 0 && !started; i--) {
    const it = items[i]!;
    if (it.kind === 'marker' && it.marker === 'compaction' && (it.payload as { compactionId?: string } | undefined)?.compactionId === compactionId) started = it;
  }
  const trigger = started?.kind === 'marker' ? (started.payload as { trigger?: unknown }).trigger : undefined;
  return trigger ? { trigger } : {};
}

const compactionsOf = (st: TranscriptState, agentId: string) => st.agents.get(agentId)?.compactions ?? 0;

/** The records family of the transcript reducer: it runs after the others (undo reads the turns family's result). */
export const records = {
  'prompt.accepted': ({ rec: s }, p, _e, o) => {
    const agentId = agentIdOf(p);
    const a = recAgent(s, agentId);
    const attachmentIds = attachmentsOf(s, o, agentId, p.content);
    a.promptText.set(p.prompt_id, { text: promptText(p.content), attachmentIds });
    const prompt = {
      promptId: p.prompt_id, status: 'queued' as const, createdAt: p.created_at, userMessageId: p.user_message_id, content: p.content,
      ...(p.metadata ? { clientMetadata: [p.metadata] } : {}),
    };
    a.prompts.set(p.prompt_id, prompt);
    o.emit(agentId, { op: 'prompt.upsert', prompt: { ...prompt } });
  },
  'prompt.steered': ({ rec: s }, p, e, o) => {
    for (const id of p.prompt_ids) setPrompt(s, o, agentIdOf(p), id, { status: 'completed', steeredAt: e.ts });
  },
  'prompt.aborted': ({ rec: s }, p, e, o) => {
    const pr = recAgent(s, agentIdOf(p)).prompts.get(p.prompt_id);
    if (pr && (pr.status === 'queued' || pr.status === 'running')) setPrompt(s, o, agentIdOf(p), p.prompt_id, { status: 'aborted', finishedAt: e.ts });
  },
  'turn.started': (st, p, e, o) => turnStarted(st.rec, o, p, e, turnOrigin(st, p)),
  'turn.step.started': ({ rec: s }, p, e, o) => stepStarted(s, o, p, e),
  'turn.step.completed': ({ rec: s }, p, e, o) => {
    const agentId = agentIdOf(p);
    const t = turnOf(recAgent(s, agentId), p.turn_id);
    const st = stepOf(t, p.step);
    if (!t || !st) return;
    Object.assign(st, { state: 'completed', endedAt: e.ts, usage: stepUsage(p.usage), finishReason: p.finish_reason, ...(p.llm_timing ? { llmTiming: llmTiming(p.llm_timing) } : {}) });
    delete st.retry;
    upsertStep(s, o, agentId, t, st);
    mergeMeta(s, o, agentId, { agent: { contextTokens: p.context_tokens } });
  },
  'turn.step.interrupted': ({ rec: s }, p, e, o) => {
    const agentId = agentIdOf(p);
    const t = turnOf(recAgent(s, agentId), p.turn_id);
    const st = stepOf(t, p.step);
    if (t && st) stepEnded(s, o, agentId, t, st, { state: 'interrupted', endedAt: e.ts, endReason: p.reason, ...(p.error ? { endMessage: p.error.message } : {}) });
  },
  'turn.step.retrying': ({ rec: s }, p, _e, o) => {
    const agentId = agentIdOf(p);
    const a = recAgent(s, agentId);
    const t = turnOf(a, p.turn_id);
    const st = stepOf(t, p.step);
    if (!t || !st) return;
    const sd = side(a, st.stepId);
    sd.open = undefined;
    sd.unclaimed = [];
    Object.assign(st, {
      state: 'running',
      retry: {
        failedAttempt: p.attempt, nextAttempt: p.next_attempt, maxAttempts: p.max_attempts ?? p.next_attempt, delayMs: p.delay_ms, errorName: p.error.kind,
        errorMessage: p.error.message, ...(p.error.status !== undefined ? { statusCode: p.error.status } : {}),
      },
    });
    upsertStep(s, o, agentId, t, st);
  },
  'turn.ended': (st, p, e, o) => turnEnded(st.rec, o, p, e, compactionsOf(st, agentIdOf(p))),
  'message.created': ({ rec: s }, p, _e, o) => messageCreated(s, o, p),
  'tool.call.started': ({ rec: s }, p, _e, o) => toolStarted(s, o, p),
  // A finished call has no progress (the streamed `progress` of records-live.ts goes): the frame is the same
  // whether the live fold saw the volatile progress or a fold of the journal did not.
  'tool.result': ({ rec: s }, p, _e, o) => patchTool(s, o, agentIdOf(p), p.tool_call_id, {
    state: p.is_error ? 'error' : 'done', output: p.content, ...(p.is_error ? { error: p.content } : {}),
  }, ['progress']),
  'event.approval.requested': ({ rec: s }, p, _e, o) => {
    const a = recAgent(s, agentIdOf(p));
    const turnId = turnOrdinal(a, p.turn_id);
    interaction(s, o, agentIdOf(p), {
      interactionId: p.approval_id, interactionKind: 'approval', state: 'pending', toolCallId: p.tool_call_id,
      request: {
        ...p, id: p.approval_id, sessionId: p.session_id, agentId: p.agent_id, toolCallId: p.tool_call_id, toolName: p.tool_name, action: p.action,
        display: approvalDisplay(s, a, p), ...(turnId !== undefined ? { turnId } : {}),
      },
    });
  },
  'event.approval.resolved': ({ rec: s }, p, _e, o) => resolveInteraction(s, o, agentIdOf(p), p.approval_id, p.decision, p),
  'event.question.requested': ({ rec: s }, p, _e, o) => {
    const a = recAgent(s, agentIdOf(p));
    const turnId = turnOrdinal(a, p.turn_id);
    interaction(s, o, agentIdOf(p), {
      interactionId: p.question_id, interactionKind: 'question', state: 'pending', toolCallId: p.tool_call_id,
      request: { ...p, toolCallId: p.tool_call_id, ...(turnId !== undefined ? { turnId } : {}) },
    });
  },
  'event.question.answered': ({ rec: s }, p, _e, o) => resolveInteraction(s, o, agentIdOf(p), p.question_id, 'answered', p),
  'event.question.dismissed': ({ rec: s }, p, _e, o) => resolveInteraction(s, o, agentIdOf(p), p.question_id, 'dismissed', p),
  'todo.updated': ({ rec: s }, p, e, o) => {
    const agentId = agentIdOf(p);
    const todo = {
      todoId: 'todo', updatedAt: e.ts,
      items: p.todos.map((x) => ({ ...x, title: x.content, status: x.status === 'completed' ? 'done' as const : x.status })),
    };
    recAgent(s, agentId).todos.set('todo', todo);
    o.emit(agentId, { op: 'todo.upsert', todo: { ...todo } });
    patchTool(s, o, agentId, p.tool_call_id, { todoId: 'todo' });
  },
  'task.started': ({ rec: s }, p, e, o) => task(s, o, p.task, e),
  'task.terminated': ({ rec: s }, p, e, o) => task(s, o, p.task, e),
  'subagent.spawned': ({ rec: s }, p, _e, o) => {
    if (!p.parent_tool_call_id) return;
    const at = toolFrame(recAgent(s, p.parent_agent_id), p.parent_tool_call_id);
    const refs = [...(at?.frame.agentRefs ?? []).filter((r) => r.agentId !== p.agent_id), { agentId: p.agent_id, role: 'child' as const }];
    patchTool(s, o, p.parent_agent_id, p.parent_tool_call_id, { agentRefs: refs });
  },
  'compaction.started': ({ rec: s }, p, e, o) => marker(s, o, agentIdOf(p), 'compaction', { phase: 'started', trigger: p.trigger, compactionId: p.compaction_id }, e.ts),
  'compaction.completed': (st, p, e, o) => {
    const agentId = agentIdOf(p);
    marker(st.rec, o, agentId, 'compaction', {
      phase: 'completed', ...triggerOf(st.rec, agentId, p.compaction_id), compactionId: p.compaction_id,
      result: { tokensBefore: p.tokens_before, tokensAfter: p.tokens_after, summary: p.summary_message_id },
    }, e.ts);
    mergeMeta(st.rec, o, agentId, { compactions: compactionsOf(st, agentId) });
  },
  'compaction.failed': ({ rec: s }, p, e, o) => marker(s, o, agentIdOf(p), 'compaction', {
    phase: 'cancelled', ...triggerOf(s, agentIdOf(p), p.compaction_id), compactionId: p.compaction_id, error: p.error.message,
  }, e.ts),
  'session.undone': (st, p, e, o) => undone(st, o, p, e),
  'goal.updated': ({ rec: s }, p, e, o) => {
    mergeMeta(s, o, 'main', { goal: p.goal && goalMeta(p.goal) });
    marker(s, o, 'main', 'goal', { goal: p.goal }, e.ts);
  },
  'hook.result': ({ rec: s }, p, e, o) => marker(s, o, agentIdOf(p), 'hook', {
    hookEvent: p.hook_event, command: p.command, origin: p.origin, outcome: p.outcome, durationMs: p.duration_ms,
    ...(p.turn_id ? { turnId: p.turn_id } : {}), ...(p.matcher ? { matcher: p.matcher } : {}),
    ...(p.tool_name ? { toolName: p.tool_name } : {}), ...(p.tool_call_id ? { toolCallId: p.tool_call_id } : {}),
    ...(p.decision ? { decision: p.decision } : {}), ...(p.reason ? { reason: p.reason } : {}),
    ...(p.exit_code !== undefined ? { exitCode: p.exit_code } : {}),
  }, e.ts),
} satisfies Family;

type DeltaPayload = { agent_id?: string; turn_id: string; step: number };

/**
 * A streamed delta (live channel only; deltas are never journaled): the first of a frame opens it
 * (`frame.upsert` with empty text, then `append` at 0), later ones `append` at the frame's length.
 */
export function applyDelta(s: RecordsState, o: OpsOut, type: string, p: DeltaPayload & Record<string, unknown>): void {
  const agentId = p.agent_id ?? 'main';
  const a = recAgent(s, agentId);
  const t = turnOf(a, p.turn_id);
  const st = stepOf(t, p.step);
  if (!t || !st) return;
  const sd = side(a, st.stepId);
  if (type === 'tool.call.delta') {
    sd.open = undefined;
    const id = String(p.tool_call_id);
    const at = toolFrame(a, id);
    const frame: RecFrame = {
      ...(at?.frame ?? {}), kind: 'tool', frameId: at?.frame.frameId ?? toolFrameId(st.stepId, id), toolCallId: id, name: String(p.tool_name), state: 'running',
      inputText: (at?.frame.inputText ?? '') + String(p.delta),
    };
    if (!at) a.tools.set(id, { turn: t, step: st });
    putFrame(s, o, agentId, t, at?.step ?? st, frame);
    return;
  }
  const kind = type === 'thinking.delta' ? 'thinking' : 'text';
  const text = String(p.text);
  let open = sd.open?.kind === kind ? sd.open : undefined;
  if (!open) {
    const frameId = `${st.stepId}.f${++sd.frames}`;
    open = kind === 'text' ? { kind, frameId, role: 'assistant', text: '' } : { kind, frameId, text: '' };
    sd.open = open;
    sd.unclaimed.push(open);
    putFrame(s, o, agentId, t, st, open);
  }
  const offset = open.text.length;
  const grown = { ...open, text: open.text + text } as TextLike;
  replaceFrame(st, sd, open, grown);
  o.emit(agentId, { op: 'append', target: { type: 'frame', turnId: t.turnId, stepId: st.stepId, frameId: open.frameId }, offset, text });
}

function replaceFrame(st: RecStep, sd: StepSide, from: TextLike, to: TextLike): void {
  const i = st.frames.indexOf(from);
  if (i >= 0) st.frames[i] = to;
  const u = sd.unclaimed.indexOf(from);
  if (u >= 0) sd.unclaimed[u] = to;
  sd.open = to;
}
