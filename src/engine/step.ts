import type { ModelClient, ModelRequest, ModelStreamPart, ProviderMeta, Usage as WireUsage, WireError } from '../providers/wire/types.ts';
import type { ContentPart } from '../../protocol/events/turns.ts';
import type { ToolCall } from './tools.ts';
import { markHere } from './trace.ts';

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
}

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

/** Folds one model stream into ordered content parts, publishing deltas as they arrive. `idleMs` 0 = no idle timeout. */
export async function runAttempt(
  client: ModelClient, req: ModelRequest, signal: AbortSignal, offsets: TurnOffsets, sink: DeltaSink, idleMs = 0,
): Promise<AttemptResult> {
  const deadline = new IdleDeadline(idleMs, signal);
  try {
    return await fold(client.stream(req, deadline.signal), offsets, sink, () => deadline.touch());
  } finally {
    deadline.clear();
  }
}

async function fold(stream: AsyncIterable<ModelStreamPart>, offsets: TurnOffsets, sink: DeltaSink, touch: () => void): Promise<AttemptResult> {
  const parts: ContentPart[] = [];
  const toolCalls: ToolCall[] = [];
  const out: AttemptResult = { parts, toolCalls, usage: { ...ZERO } };
  let thinkingOpen = false;
  const calls = new Map<string, { id: string; name: string; chars: number }>();
  for await (const part of stream) {
    markHere('part.first');
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
  }
  return out;
}

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
