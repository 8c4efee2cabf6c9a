import type { ModelClient, ModelRequest, ModelStreamPart, ProviderMeta, Usage as WireUsage, WireError, WireTrace } from '../providers/wire/types.ts';
import type { ContentPart, LlmTiming } from '../../protocol/events/turns.ts';
import type { ToolCall } from './tools.ts';
import { repairToolPairing } from './tool-pairing.ts';

/** Where the turn's streamed text stands: volatile deltas carry these cumulative offsets. */
export interface TurnOffsets {
  text: number;
  thinking: number;
}

export interface DeltaSink {
  text(text: string, offset: number): void;
  thinking(text: string, offset: number): void;
  /** Streamed arguments of a tool call; `offset` counts the call's argument characters so far. */
  toolArgs?(call: { id: string; name: string }, delta: string, offset: number): void;
}

export interface AttemptResult {
  parts: ContentPart[];
  toolCalls: ToolCall[];
  usage: WireUsage;
  finish?: string;
  error?: WireError;
  /** How the request went (turn.step.completed `llm_timing`), ms. */
  timing?: LlmTiming;
}


const ms = (x: number) => Math.round(x * 10) / 10;

const ZERO: WireUsage = { input: 0, output: 0, cache_read: 0, cache_creation: 0 };

/**
 * Aborts the request when no stream part arrived for `ms` (the first byte included). The reason is a
 * `TimeoutError`, which the wire layer classifies as `transient`, unlike the turn's own abort.
 */
class IdleDeadline {
  private readonly ctl = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  readonly signal: AbortSignal;

  constructor(private readonly ms: number, turn: AbortSignal) {
    this.signal = ms > 0 ? AbortSignal.any([turn, this.ctl.signal]) : turn;
    this.touch();
  }

  /** Called for every stream part: re-arms the one timer (refresh) instead of allocating a new one. */
  touch(): void {
    if (this.ms <= 0) return;
    if (this.timer) this.timer.refresh();
    else this.timer = setTimeout(() => this.ctl.abort(new DOMException(`no data from the model for ${this.ms} ms`, 'TimeoutError')), this.ms);
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

/**
 * Folds one model stream into ordered content parts, publishing deltas as they arrive. `idleMs` 0 = no idle timeout.
 * Every model request goes through here (turn steps, compactions), so the history's tool calls and results are
 * checked and repaired here (src/engine/tool-pairing.ts).
 */
export async function runAttempt(
  client: ModelClient, req: ModelRequest, signal: AbortSignal, offsets: TurnOffsets, sink: DeltaSink, idleMs = 0,
): Promise<AttemptResult> {
  const deadline = new IdleDeadline(idleMs, signal);
  try {
    const sent = performance.now();
    const messages = repairToolPairing(req.messages);
    const out = await fold(client.stream(messages === req.messages ? req : { ...req, messages }, deadline.signal), offsets, sink, () => deadline.touch(), req.trace);
    const t = out.timing!;
    const first = (t as { first?: number }).first;
    delete (t as { first?: number }).first;
    if (first !== undefined) {
      t.first_token_latency_ms = ms(first - sent);
      t.stream_duration_ms = ms(performance.now() - first);
    }
    return out;
  } finally {
    deadline.clear();
  }
}

async function fold(
  stream: AsyncIterable<ModelStreamPart>, offsets: TurnOffsets, sink: DeltaSink, touch: () => void, trace?: WireTrace,
): Promise<AttemptResult> {
  const parts: ContentPart[] = [];
  const toolCalls: ToolCall[] = [];
  const timing: LlmTiming & { first?: number } = {};
  const out: AttemptResult = { parts, toolCalls, usage: { ...ZERO }, timing };
  let thinkingOpen = false;
  let consume = 0;
  const calls = new Map<string, { id: string; name: string; chars: number }>();
  for await (const part of stream) {
    trace?.('part.first');
    const at = performance.now();
    if (timing.first === undefined && CONTENT_PARTS.has(part.type)) timing.first = at;
    touch();
    const last = parts[parts.length - 1];
    switch (part.type) {
      case 'text-delta':
        if (!part.text) break;
        if (last?.type === 'text') last.text += part.text;
        else parts.push({ type: 'text', text: part.text });
        sink.text(part.text, offsets.text);
        offsets.text += part.text.length;
        break;
      case 'reasoning-delta':
        if (!part.text) break;
        if (last?.type === 'thinking' && thinkingOpen) last.thinking += part.text;
        else parts.push({ type: 'thinking', thinking: part.text });
        thinkingOpen = true;
        sink.thinking(part.text, offsets.thinking);
        offsets.thinking += part.text.length;
        break;
      case 'reasoning-end':
        closeThinking(parts, part.meta);
        thinkingOpen = false;
        break;
      case 'tool-call-start':
        calls.set(part.id, { id: part.id, name: part.name, chars: 0 });
        break;
      case 'tool-call-delta': {
        const call = calls.get(part.id);
        if (!call || !part.argsTextDelta) break;
        sink.toolArgs?.(call, part.argsTextDelta, call.chars);
        call.chars += part.argsTextDelta.length;
        break;
      }
      case 'tool-call':
        parts.push({ type: 'tool_use', id: part.id, name: part.name, input: part.input, ...(part.meta ? { meta: part.meta } : {}) });
        toolCalls.push({ id: part.id, name: part.name, input: part.input });
        break;
      case 'usage':
        out.usage = part.usage;
        break;
      case 'finish':
        out.finish = part.reason;
        break;
      case 'error':
        out.error = part.error;
        break;
      default:
        break;
    }
    consume += performance.now() - at;
  }
  timing.client_consume_ms = ms(consume);
  return out;
}

/** Stream parts that carry the model's output (the first one is the first token). */
const CONTENT_PARTS = new Set(['text-delta', 'reasoning-delta', 'tool-call-start', 'tool-call-delta', 'tool-call']);

function closeThinking(parts: ContentPart[], meta?: ProviderMeta): void {
  for (let i = parts.length - 1; i >= 0; i--) {
    const p = parts[i]!;
    if (p.type !== 'thinking') continue;
    if (meta) {
      p.meta = meta;
      const sig = Object.values(meta).map((m) => m?.signature).find((s) => typeof s === 'string');
      if (sig) p.signature = sig as string;
    }
    return;
  }
}
