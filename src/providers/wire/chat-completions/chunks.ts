import { randomUUID } from 'node:crypto';
import { classifyError } from '../errors.ts';
import type { FinishReason, ModelStreamPart, ProviderMeta, Usage } from '../types.ts';
import { parseToolArgs } from '../tool-args.ts';

/** The fields of a chat-completions stream chunk we read; everything else is ignored. */
interface Chunk {
  choices?: Array<{ delta?: Delta | null; finish_reason?: string | null }>;
  usage?: RawUsage | null;
  error?: unknown;
}

interface Delta {
  content?: string | Array<{ type?: string; text?: unknown; thinking?: unknown }> | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: ToolCallDelta[] | null;
  [key: string]: unknown;
}

interface ToolCallDelta {
  index?: number | null;
  id?: string | null;
  function?: { name?: string | null; arguments?: string | null };
  extra_content?: unknown;
}

interface RawUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
}

interface OpenCall {
  index: number | undefined;
  id: string;
  name: string | undefined;
  args: string;
  extra: unknown;
  started: boolean;
}

const FINISH: Record<string, FinishReason> = {
  stop: 'stop', length: 'length', content_filter: 'content_filter', tool_calls: 'tool_calls', function_call: 'tool_calls',
};

/**
 * Turns the JSON chunks of one streamed chat completion into our stream parts, in order:
 * reasoning and text deltas as they come (a reasoning block ends when text or a tool call
 * starts), tool calls streamed by index and completed at the finish reason, then usage and
 * finish when the stream ends (`[DONE]` or the end of the body; the usage chunk comes after
 * the finish reason). An `error` chunk ends the stream with a classified error.
 */
export class ChunkMapper {
  private reasoning = false;
  private readonly calls: OpenCall[] = [];
  private finishRaw: string | undefined;
  private usage: Usage = { input: 0, output: 0, cache_read: 0, cache_creation: 0 };
  private callsDone = false;

  /** `reasoningKey`: a gateway's own name for the reasoning field (Part B `reasoning_key`). */
  constructor(private readonly reasoningKey?: string) {}

  /** Parts for one `data:` payload; the returned `error` part, if any, is the last of the stream. */
  map(data: string, out: ModelStreamPart[]): void {
    let chunk: Chunk;
    try {
      chunk = JSON.parse(data) as Chunk;
    } catch {
      out.push({ type: 'error', error: { kind: 'other', message: `the model stream sent invalid JSON: ${data.slice(0, 200)}` } });
      return;
    }
    if (chunk.error != null) {
      out.push({ type: 'error', error: classifyError(chunk.error) });
      return;
    }
    if (chunk.usage) this.usage = toUsage(chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) return;
    if (choice.delta) this.delta(choice.delta, out);
    if (choice.finish_reason != null) {
      this.finishRaw = choice.finish_reason;
      this.endCalls(out);
    }
  }

  /** The stream's end: open blocks and calls close, then usage and finish (an error if no finish reason came). */
  end(out: ModelStreamPart[]): void {
    this.endReasoning(out);
    this.endCalls(out);
    if (this.finishRaw === undefined) {
      out.push({ type: 'error', error: { kind: 'transient', message: 'stream ended before the model finished' } });
      return;
    }
    out.push({ type: 'usage', usage: this.usage }, { type: 'finish', reason: FINISH[this.finishRaw] ?? 'other', raw: this.finishRaw });
  }

  private delta(d: Delta, out: ModelStreamPart[]): void {
    const reasoning = (this.reasoningKey ? (d[this.reasoningKey] as string | null | undefined) : undefined) ?? d.reasoning_content ?? d.reasoning;
    if (reasoning) this.reasoningDelta(reasoning, out);
    if (typeof d.content === 'string') {
      if (d.content) this.textDelta(d.content, out);
    } else if (Array.isArray(d.content)) {
      for (const p of d.content) {
        if (p.type === 'text' && typeof p.text === 'string' && p.text) this.textDelta(p.text, out);
        else if (p.type === 'thinking' && Array.isArray(p.thinking)) {
          const text = p.thinking.map((c: { type?: string; text?: unknown }) => (c?.type === 'text' && typeof c.text === 'string' ? c.text : '')).join('');
          if (text) this.reasoningDelta(text, out);
        }
      }
    }
    if (d.tool_calls?.length) {
      this.endReasoning(out);
      for (const c of d.tool_calls) this.callDelta(c, out);
    }
  }

  private reasoningDelta(text: string, out: ModelStreamPart[]): void {
    this.reasoning = true;
    out.push({ type: 'reasoning-delta', text });
  }

  private textDelta(text: string, out: ModelStreamPart[]): void {
    this.endReasoning(out);
    out.push({ type: 'text-delta', text });
  }

  private endReasoning(out: ModelStreamPart[]): void {
    if (!this.reasoning) return;
    this.reasoning = false;
    out.push({ type: 'reasoning-end' });
  }

  /**
   * One call's delta. Calls are matched by `index` (some gateways omit it: then by id, then the
   * last open call); a call starts once its name is known, arguments seen before that are sent
   * with the start.
   */
  private callDelta(d: ToolCallDelta, out: ModelStreamPart[]): void {
    const index = d.index ?? undefined;
    const id = d.id || undefined;
    const name = d.function?.name || undefined;
    let call = index !== undefined ? this.calls.find((c) => c.index === index) : id ? this.calls.find((c) => c.id === id) : this.calls.at(-1);
    if (!call || (index === undefined && name && call.started && call.name !== name && !id)) {
      call = { index, id: id ?? `call_${randomUUID()}`, name: undefined, args: '', extra: undefined, started: false };
      this.calls.push(call);
    }
    if (id && !call.started) call.id = id;
    if (d.extra_content != null && call.extra === undefined) call.extra = d.extra_content;
    const args = d.function?.arguments ?? '';
    call.args += args;
    if (!call.started && name) {
      call.name = name;
      call.started = true;
      out.push({ type: 'tool-call-start', id: call.id, name });
      if (call.args) out.push({ type: 'tool-call-delta', id: call.id, argsTextDelta: call.args });
    } else if (call.started && args) {
      out.push({ type: 'tool-call-delta', id: call.id, argsTextDelta: args });
    }
  }

  private endCalls(out: ModelStreamPart[]): void {
    if (this.callsDone) return;
    this.callsDone = true;
    const ordered = this.calls.every((c) => c.index !== undefined) ? [...this.calls].sort((a, b) => a.index! - b.index!) : this.calls;
    for (const c of ordered) {
      if (!c.started) continue;
      const meta: ProviderMeta | undefined = c.extra !== undefined ? { chat_completions: { extra_content: c.extra } } : undefined;
      out.push({ type: 'tool-call', id: c.id, name: c.name!, input: parseToolArgs(c.args), ...(meta ? { meta } : {}) });
    }
  }
}

function toUsage(u: RawUsage): Usage {
  return { input: u.prompt_tokens ?? 0, output: u.completion_tokens ?? 0, cache_read: u.prompt_tokens_details?.cached_tokens ?? 0, cache_creation: 0 };
}
