import type { SubagentLauncher } from '../agents/launcher.ts';
import type { EventJournal } from '../events/journal.ts';
import type { VolatileBus } from '../events/volatile-bus.ts';
import type { Clock } from '../lib/clock.ts';
import type { Ids } from '../lib/ids.ts';
import type { ModelMediaFiles } from '../media/model-media.ts';
import type { ModelClient, ThinkingRequest, WireError } from '../providers/wire/types.ts';
import type { ContentPart, Message, TurnReason } from '../../protocol/events/turns.ts';
import type { Usage } from '../../protocol/events/common.ts';
import { estimateTokens, toModelMessages } from './history.ts';
import { backoffMs, DEFAULT_MODEL_IDLE_TIMEOUT_MS, sleep } from './retry.ts';
import { runAttempt, type AttemptResult, type TurnOffsets } from './step.ts';
import type { ToolExecutor, ToolScope } from './tools.ts';
import { runToolCalls } from './tool-calls.ts';
import type { PromptTracer } from './trace.ts';
import type { EventTypes, NewEvent, PayloadOf } from '../../protocol/events/registry.ts';

export const MAIN_AGENT = 'main';

/** What a turn appends to, publishes on and stamps with; prompt media is read from `home` and the uploads, images fitted by `images`. */
export interface TurnDeps extends ModelMediaFiles {
  journal: EventJournal;
  bus: VolatileBus;
  clock: Clock;
  ids: Ids;
  /** The prompt-latency trace (src/engine/trace.ts): marks each step's stages, and the wire's through the request. */
  tracer: PromptTracer;
}

export interface LoopLimits {
  maxSteps: number;
  maxAttempts: number;
  retryBaseMs: number;
  strategy: string;
  /** No stream part for this long (or no first byte) times a request out, as a transient failure; 0 = never. */
  idleTimeoutMs?: number;
}

/** What a turn needs from its runtime. */
export interface TurnInput {
  deps: TurnDeps;
  sessionId: string;
  turnId: string;
  history: Message[];
  client: ModelClient;
  thinking: ThinkingRequest;
  tools: ToolExecutor;
  /** The engine's subagent launcher, handed to each tool call (the Agent tools). */
  subagents: SubagentLauncher;
  disabledTools: readonly string[];
  /** The agent running the turn (default `main`); a subagent's events carry its id. */
  agentId?: string;
  /** Restricts the tools offered to this agent (subagents, `:btw`). */
  toolScope?: Pick<ToolScope, 'only' | 'exclude'>;
  limits: LoopLimits;
  signal: AbortSignal;
  /** Prompts steered in since the last step: their user messages go in before the next step. */
  takeSteered(): Array<{ prompt_id: string; message: Message }>;
  /** Task notes (background work that ended) waiting for this agent: they go in before the next step. */
  takeNotes?(): Message[];
  /** The daemon is stopping: leave the turn open in the journal (the next start ends it). */
  closing(): boolean;
  /** The append of `turn.started` (in flight while the first request goes out). */
  started?: Promise<unknown>;
  /** `started` also carries step 1's `step.started` (no auto-compaction was due before it). */
  stepOneStarted?: boolean;
  /** The system prompt of each request (evaluated per request: plan mode adds a reminder). */
  system?(): string | undefined;
  /** Runs before each step (auto-compaction, docs/compaction-undo.md). */
  beforeStep?(step: number): Promise<void>;
  /** Keeps the context inside the model's window (docs/compaction-undo.md). */
  context?: TurnContext;
}

/** A turn's hold on its context size (src/engine/compaction/runtime.ts). */
export interface TurnContext {
  /** The provider refused the step's request as too long: compacts; true when the context changed (the step is retried once). */
  overflow(step: number): Promise<boolean>;
  /** The provider's count of the request just answered (input + output), its answer already in the history. */
  measured(tokens: number): void;
}

export interface TurnOutcome {
  reason: TurnReason;
  error?: { kind: string; message: string; status?: number };
  usage: Usage;
  steps: number;
}

type Failure = { kind: string; message: string; status?: number };
const errOf = (e: WireError): Failure => ({ kind: e.kind, message: e.message, ...(e.status !== undefined ? { status: e.status } : {}) });

/** Runs the steps of one turn; returns null when the daemon is stopping mid-turn. */
export async function runTurn(t: TurnInput): Promise<TurnOutcome | null> {
  const usage: Usage = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0 };
  const offsets: TurnOffsets = { text: 0, thinking: 0 };
  const base = { agent_id: agentOf(t), turn_id: t.turnId };
  const emit = (events: NewEvent[]) => t.deps.journal.append(events.map((e) => ({ stream: t.sessionId, ...e })));
  const carried: Steered = [];
  const end = (reason: TurnReason, steps: number, error?: Failure): TurnOutcome => ({ reason, usage, steps, ...(error ? { error } : {}) });
  for (let step = 1; ; step++) {
    if (t.limits.maxSteps > 0 && step > t.limits.maxSteps) {
      return end('failed', step - 1, { kind: 'max_steps', message: `max_steps_per_turn (${t.limits.maxSteps}) reached` });
    }
    t.deps.tracer.mark(t.sessionId, 'step.start');
    const preStarted = step === 1 && t.stepOneStarted === true;
    if (t.beforeStep && !preStarted) await t.beforeStep(step);
    t.deps.tracer.mark(t.sessionId, 'step.beforeStep');
    await foldSteered(t, emit, carried);
    t.deps.tracer.mark(t.sessionId, 'step.folded');
    // The request goes out while step.started is written; deltas wait for it (and turn.started).
    const ready = preStarted ? Promise.resolve(t.started) : Promise.all([t.started, emit([{ type: 'turn.step.started', payload: { ...base, step } }])]);
    ready.catch(() => undefined); // awaited in attemptStep
    t.deps.tracer.mark(t.sessionId, 'step.appendCalled');
    if (t.deps.tracer.on) ready.then(() => t.deps.tracer.mark(t.sessionId, 'step.ready'), () => undefined);
    const result = await attemptStep(t, step, offsets, emit, ready);
    if (t.closing()) return null;
    if (result.error) {
      await saveAssistant(t, result.parts, emit, { interrupted: true });
      const reason = result.error.kind === 'aborted' ? 'cancelled' : 'failed';
      const error = reason === 'failed' ? errOf(result.error) : undefined;
      await emit([{ type: 'turn.step.interrupted', payload: { ...base, step, reason, ...(error ? { error } : {}) } }]);
      return end(reason, step, error);
    }
    addUsage(usage, result);
    const message = buildMessage(t, result.parts);
    t.history.push(message);
    t.context?.measured(result.usage.input + result.usage.output);
    const context_tokens = contextTokens(t, result);
    await emit([
      { type: 'message.created', payload: { ...base, message } },
      {
        type: 'turn.step.completed',
        payload: {
          ...base, step, finish_reason: result.finish ?? 'other', usage: stepUsage(result), context_tokens, message_id: message.id,
          ...(result.timing ? { llm_timing: result.timing } : {}),
        },
      },
    ]);
    if (result.toolCalls.length) {
      await runTools(t, result, emit);
      if (t.signal.aborted) return t.closing() ? null : end('cancelled', step);
      continue;
    }
    if (hasSteered(t, carried)) continue;
    return end('completed', step);
  }
}

type Emit = (events: NewEvent[]) => Promise<unknown>;

type Steered = Array<{ prompt_id: string; message: Message }>;

/** Prompts steered in while the last step ran keep the turn going for one more step. */
function hasSteered(t: TurnInput, carried: Steered): boolean {
  carried.push(...t.takeSteered());
  return carried.length > 0;
}

/**
 * Before a step's request: task notes that arrived (background work that ended) and prompts steered in join
 * the history. A step starts after the previous step's tool results, so nothing lands between a call and its result.
 */
async function foldSteered(t: TurnInput, emit: Emit, carried: Steered): Promise<void> {
  const notes = t.takeNotes?.() ?? [];
  const items = [...carried.splice(0), ...t.takeSteered()];
  if (!items.length && !notes.length) return;
  for (const m of notes) t.history.push(m);
  for (const i of items) t.history.push(i.message);
  const created = (message: Message): NewEvent => ({ type: 'message.created', payload: { agent_id: agentOf(t), turn_id: t.turnId, message } });
  await emit([
    ...notes.map(created),
    ...items.map((i) => created(i.message)),
    ...(items.length ? [{ type: 'prompt.steered', payload: { agent_id: agentOf(t), turn_id: t.turnId, prompt_ids: items.map((i) => i.prompt_id) } } satisfies NewEvent] : []),
  ]);
}

/** One step with loop_control retries: transient failures back off and retry; anything else ends the step. */
async function attemptStep(t: TurnInput, step: number, offsets: TurnOffsets, emit: Emit, ready: Promise<unknown>): Promise<AttemptResult> {
  const publish = gatedPublisher(t, ready);
  const sink = {
    text: (text: string, offset: number) => publish('assistant.delta', { agent_id: agentOf(t), turn_id: t.turnId, step, text, offset }, offset),
    thinking: (text: string, offset: number) => publish('thinking.delta', { agent_id: agentOf(t), turn_id: t.turnId, step, text, offset }, offset),
    toolArgs: (call: { id: string; name: string }, delta: string, offset: number) => publish('tool.call.delta', {
      agent_id: agentOf(t), turn_id: t.turnId, step, tool_call_id: call.id, tool_name: call.name, delta, offset,
    }, offset),
  };
  let compacted = false;
  for (let attempt = 1; ; attempt++) {
    const building = performance.now();
    const messages = await toModelMessages(t.history, { files: t.deps, sessionId: t.sessionId, model: t.client });
    t.deps.tracer.mark(t.sessionId, 'step.messages');
    const system = t.system?.();
    if (t.tools.ready) await t.tools.ready(t.sessionId);
    const req = {
      ...(system ? { system } : {}), messages, tools: t.tools.specs(t.sessionId, t.disabledTools, scopeOf(t)), thinking: t.thinking,
      ...(t.deps.tracer.on ? { trace: (label: string) => t.deps.tracer.mark(t.sessionId, label) } : {}),
    };
    t.deps.tracer.mark(t.sessionId, 'step.specs');
    const built = performance.now() - building;
    const result = await runAttempt(t.client, req, t.signal, offsets, sink, t.limits.idleTimeoutMs ?? DEFAULT_MODEL_IDLE_TIMEOUT_MS);
    await ready;
    result.timing = { request_build_ms: Math.round(built * 10) / 10, ...result.timing };
    if (result.error?.kind === 'context_overflow' && t.context && !t.signal.aborted) {
      // Compact and retry once; a second refusal (or a compaction that changed nothing) fails the step.
      if (!compacted && await retryCompacted(t, step, attempt, result, emit)) {
        compacted = true;
        continue;
      }
      result.error = { ...result.error, message: compacted ? `the request still exceeds the model's context window after compaction: ${result.error.message}`
        : `the request exceeds the model's context window and the context could not be compacted: ${result.error.message}` };
      return result;
    }
    if (!result.error || result.error.kind !== 'transient' || attempt >= t.limits.maxAttempts || t.signal.aborted) {
      if (result.error && t.signal.aborted) result.error = { kind: 'aborted', message: 'turn cancelled' };
      return result;
    }
    const delay_ms = backoffMs(attempt, t.limits.retryBaseMs, result.error.retry_after_ms);
    // The failed attempt's deltas were live and offsets never go back (Core Events rule 3): journal
    // that text too, so a replay reads what a live client saw. Its metadata keeps it out of the model context.
    await emit([...partialEvents(t, result.parts, { interrupted: true, retried: true }), {
      type: 'turn.step.retrying',
      payload: {
        agent_id: agentOf(t), turn_id: t.turnId, step, attempt, next_attempt: attempt + 1, delay_ms, error: errOf(result.error), max_attempts: t.limits.maxAttempts,
      },
    }]);
    if (!(await sleep(delay_ms, t.signal))) return { ...result, parts: [], error: { kind: 'aborted', message: 'turn cancelled' } };
  }
}

/** The provider refused the request as too long: journals the retry (a visible warning), then compacts. */
async function retryCompacted(t: TurnInput, step: number, attempt: number, result: AttemptResult, emit: Emit): Promise<boolean> {
  await emit([...partialEvents(t, result.parts, { interrupted: true, retried: true }), {
    type: 'turn.step.retrying',
    payload: {
      agent_id: agentOf(t), turn_id: t.turnId, step, attempt, next_attempt: attempt + 1, delay_ms: 0, error: errOf(result.error!),
      max_attempts: Math.max(t.limits.maxAttempts, attempt + 1),
    },
  }]);
  return t.context!.overflow(step);
}

type DeltaType = EventTypes<'assistant.delta' | 'thinking.delta' | 'tool.call.delta'>;

/**
 * Volatile frames held until `ready` (the step's start events) is on disk, so a
 * subscriber never sees a delta before the turn and step it belongs to.
 */
function gatedPublisher(t: TurnInput, ready: Promise<unknown>) {
  let open = false;
  const held: Array<[DeltaType, PayloadOf<DeltaType>, number]> = [];
  ready.then(() => {
    open = true;
    if (held.length) t.deps.tracer.mark(t.sessionId, 'delta.sent');
    for (const [type, payload, offset] of held.splice(0)) t.deps.bus.publish(t.sessionId, type, payload, offset);
  }, () => undefined);
  return <T extends DeltaType>(type: T, payload: PayloadOf<T>, offset: number) => {
    t.deps.tracer.mark(t.sessionId, 'delta.first');
    if (open) {
      t.deps.tracer.mark(t.sessionId, 'delta.sent');
      t.deps.bus.publish(t.sessionId, type, payload, offset);
    } else held.push([type, payload, offset]);
  };
}

function buildMessage(t: TurnInput, content: ContentPart[], metadata?: Record<string, unknown>): Message {
  return {
    id: t.deps.ids.next('msg'), session_id: t.sessionId, role: 'assistant', content, created_at: t.deps.clock.now().toISOString(),
    ...(metadata ? { metadata } : {}),
  };
}

/** Keeps what streamed before a cancel or failure, so the history shows it. */
async function saveAssistant(t: TurnInput, parts: ContentPart[], emit: Emit, metadata: Record<string, unknown>): Promise<void> {
  const events = partialEvents(t, parts, metadata);
  if (events.length) await emit(events);
}

/** The `message.created` of an attempt's streamed text and thinking (none when nothing streamed). */
function partialEvents(t: TurnInput, parts: ContentPart[], metadata: Record<string, unknown>): NewEvent[] {
  const kept = parts.filter((p) => p.type === 'text' || p.type === 'thinking');
  if (!kept.length) return [];
  const message = buildMessage(t, kept, metadata);
  t.history.push(message);
  return [{ type: 'message.created', payload: { agent_id: agentOf(t), turn_id: t.turnId, message } }];
}

/** The step's tool calls (src/engine/tool-calls.ts: after an abort no further call starts, and every call gets a result). */
function runTools(t: TurnInput, result: AttemptResult, emit: Emit): Promise<void> {
  return runToolCalls({ ...t, agentId: agentOf(t), scope: scopeOf(t) }, result.toolCalls, emit);
}

const agentOf = (t: TurnInput): string => t.agentId ?? MAIN_AGENT;

function scopeOf(t: TurnInput): ToolScope {
  return { agentId: agentOf(t), turnId: t.turnId, disabled: t.disabledTools, ...t.toolScope };
}

function stepUsage(r: AttemptResult): Usage {
  return { input_tokens: r.usage.input, output_tokens: r.usage.output, cache_read_tokens: r.usage.cache_read, cache_creation_tokens: r.usage.cache_creation };
}

function addUsage(total: Usage, r: AttemptResult): void {
  const s = stepUsage(r);
  total.input_tokens += s.input_tokens;
  total.output_tokens += s.output_tokens;
  total.cache_read_tokens += s.cache_read_tokens;
  total.cache_creation_tokens += s.cache_creation_tokens;
}

/** Part B token_counting: measured = the last request's prompt plus its output; estimated = history size / 4. */
function contextTokens(t: TurnInput, r: AttemptResult): number {
  const measured = r.usage.input + r.usage.output;
  if (t.limits.strategy === 'estimated' || measured === 0) return estimateTokens(t.history);
  // Right after a request nothing is unmeasured yet, so measured+estimated equals measured here.
  return measured;
}
