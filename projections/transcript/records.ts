import type { JournalEvent } from '../../journal/types.ts';
import type { PayloadOf } from '../contract.ts';
import { undoOf } from '../undo.ts';
import { goalMeta, llmTiming, turnOrigin } from './records-origin.ts';
import { callDisplay, toolDisplay, toolView } from '../../protocol/display.ts';
import { agentIdOf, type Family, type TranscriptState } from './state.ts';
import { recAgent, stepUsage, type OpsOut, type RecAgent, type RecFrame, type RecInteraction, type RecordsState, type RecTask } from './records-state.ts';
import { marker, mergeMeta, patchTool, putFrame, side, stepOf, toolFrame, toolFrameId, turnOf, upsertStep } from './records-write.ts';
import { attachmentsOf, messageCreated, promptText, setPrompt, stepEnded, stepStarted, summary, turnEnded, turnStarted } from './records-turn.ts';

// The client records (spec/clients.md B) and the ops that build them (C2), one handler per event: the turn
// lifecycle (records-turn.ts), tools, interactions, tasks, undo and markers. The same handlers fold the journal
// (GET /transcript) and feed the live folds (projections/transcript/live/), which also apply the deltas
// (records-write.ts applyDelta, records-live.ts).

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
