import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart, LanguageModelV3Usage } from '@ai-sdk/provider';
import { classifyError } from './errors.ts';
import type { FinishReason, ModelStreamPart, ProviderMeta, Usage, WireTrace } from './types.ts';
import { parseToolArgs } from './tool-args.ts';

const FINISH: Record<string, FinishReason> = {
  stop: 'stop', length: 'length', 'tool-calls': 'tool_calls', 'content-filter': 'content_filter', error: 'error', other: 'other',
};

/**
 * Runs one `doStream` call and translates its parts. Never throws: every failure, abort included,
 * becomes a final `error` part. The upstream HTTP request is cancelled through `abortSignal`.
 */
export async function* streamModel(
  model: LanguageModelV3, call: LanguageModelV3CallOptions, signal: AbortSignal, trace?: WireTrace,
): AsyncGenerator<ModelStreamPart> {
  let reader: ReadableStreamDefaultReader<LanguageModelV3StreamPart> | undefined;
  try {
    if (signal.aborted) throw signal.reason;
    const { stream } = await model.doStream({ ...call, abortSignal: signal });
    trace?.('wire.doStreamed');
    reader = stream.getReader();
    const state = new PartState();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const out = state.map(value);
      for (const p of out) yield p;
      if (out.some((p) => p.type === 'error' || p.type === 'finish')) return;
    }
    if (signal.aborted) throw signal.reason;
    yield { type: 'error', error: { kind: 'transient', message: 'stream ended before the model finished' } };
  } catch (err) {
    yield { type: 'error', error: classifyError(err, signal) };
  } finally {
    // Cancelling the reader releases the fetch body when the consumer stops early.
    reader?.cancel().catch(() => undefined);
  }
}

/** Per-stream bookkeeping: started tool calls and the provider metadata of the open reasoning block. */
class PartState {
  private readonly started = new Set<string>();
  private reasoningMeta: ProviderMeta | undefined;

  map(part: LanguageModelV3StreamPart): ModelStreamPart[] {
    switch (part.type) {
      case 'text-delta':
        return part.delta ? [{ type: 'text-delta', text: part.delta }] : [];
      case 'reasoning-start':
        this.reasoningMeta = mergeMeta(undefined, part.providerMetadata);
        return [];
      case 'reasoning-delta':
        this.reasoningMeta = mergeMeta(this.reasoningMeta, part.providerMetadata);
        return part.delta ? [{ type: 'reasoning-delta', text: part.delta }] : [];
      case 'reasoning-end': {
        const meta = mergeMeta(this.reasoningMeta, part.providerMetadata);
        this.reasoningMeta = undefined;
        return [meta ? { type: 'reasoning-end', meta } : { type: 'reasoning-end' }];
      }
      case 'tool-input-start':
        this.started.add(part.id);
        return [{ type: 'tool-call-start', id: part.id, name: part.toolName }];
      case 'tool-input-delta':
        return part.delta ? [{ type: 'tool-call-delta', id: part.id, argsTextDelta: part.delta }] : [];
      case 'tool-call':
        return this.toolCall(part.toolCallId, part.toolName, part.input, part.providerMetadata);
      case 'finish':
        return [{ type: 'usage', usage: toUsage(part.usage) }, { type: 'finish', reason: FINISH[part.finishReason.unified] ?? 'other', raw: part.finishReason.raw }];
      case 'error':
        return [{ type: 'error', error: classifyError(part.error) }];
      default:
        return [];
    }
  }

  private toolCall(id: string, name: string, raw: string, meta: ProviderMeta | undefined): ModelStreamPart[] {
    const out: ModelStreamPart[] = [];
    if (!this.started.has(id)) {
      // Some protocols deliver a call whole; keep the start/delta/call order for the engine anyway.
      out.push({ type: 'tool-call-start', id, name });
      if (raw) out.push({ type: 'tool-call-delta', id, argsTextDelta: raw });
    }
    out.push({ type: 'tool-call', id, name, input: parseToolArgs(raw), ...(meta ? { meta } : {}) });
    return out;
  }
}

function mergeMeta(a: ProviderMeta | undefined, b: ProviderMeta | undefined): ProviderMeta | undefined {
  if (!b) return a;
  const out: ProviderMeta = { ...(a ?? {}) };
  for (const [k, v] of Object.entries(b)) out[k] = { ...(out[k] ?? {}), ...(v as Record<string, unknown>) };
  return out;
}

/** `input` counts every prompt token, cached ones included. */
function toUsage(u: LanguageModelV3Usage): Usage {
  return {
    input: u.inputTokens.total ?? 0,
    output: u.outputTokens.total ?? 0,
    cache_read: u.inputTokens.cacheRead ?? 0,
    cache_creation: u.inputTokens.cacheWrite ?? 0,
  };
}
