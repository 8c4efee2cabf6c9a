import { SERVER_VERSION } from '../../../app/version.ts';
import { classifyError } from '../errors.ts';
import type { ProtocolInput } from '../protocol.ts';
import { thinkingOn, wireEffort } from '../protocol.ts';
import type { ModelRequest, ModelStreamPart } from '../types.ts';
import { ChunkMapper } from './chunks.ts';
import { chatBodyJson, type ChatBodyOptions } from './request.ts';
import { streamChatCompletion } from './stream.ts';

export type Streamer = (req: ModelRequest, signal: AbortSignal) => AsyncGenerator<ModelStreamPart>;

/** Field names that already mean reasoning to every chat-completions reader. */
const STANDARD_REASONING = ['reasoning_content', 'reasoning'];

/** chat_compat: OpenAI chat completions and compatible gateways (`reasoning_effort`, `reasoning_key`). */
export function chatCompat({ creds, model, headers }: ProtocolInput): Streamer {
  const key = model.reasoning_key && !STANDARD_REASONING.includes(model.reasoning_key) ? model.reasoning_key : undefined;
  return chatStreamer(creds.baseURL!, creds.apiKey, headers, (req) => ({
    model: model.model, maxTokens: req.maxOutputTokens, reasoningEffort: wireEffort(req, model), reasoningKey: key,
  }), key);
}

/**
 * svc: the managed provider, chat completions; while thinking is on the body carries
 * `thinking: {keep}` (Part B thinking.keep passthrough).
 */
export function svc({ creds, model, headers }: ProtocolInput): Streamer {
  return chatStreamer(creds.baseURL!, creds.apiKey, headers, (req) => ({
    model: model.model,
    maxTokens: req.maxOutputTokens,
    reasoningEffort: wireEffort(req, model),
    extra: thinkingOn(req) && req.thinking?.keep ? { thinking: { keep: req.thinking.keep } } : undefined,
  }));
}

function chatStreamer(
  baseURL: string, apiKey: string | undefined, custom: Record<string, string>,
  options: (req: ModelRequest) => ChatBodyOptions, reasoningKey?: string,
): Streamer {
  const url = new URL(`${baseURL}/chat/completions`);
  const base = lowerKeys({ 'user-agent': `svc-code/${SERVER_VERSION}`, ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) }, custom);
  return (req, signal) => {
    req.trace?.('wire.request');
    let body: string;
    try {
      body = chatBodyJson(req, options(req));
    } catch (err) {
      return failed(err, signal);
    }
    req.trace?.('wire.call');
    const headers = req.headers ? lowerKeys(base, req.headers) : base;
    return streamChatCompletion(url, headers, body, new ChunkMapper(reasoningKey), signal, req.trace);
  };
}

/** Header records merged left to right with lowercase names, so a later value replaces an earlier one of any case. */
function lowerKeys(...records: Array<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of records) for (const [k, v] of Object.entries(r)) if (v != null) out[k.toLowerCase()] = String(v);
  return out;
}

async function* failed(err: unknown, signal: AbortSignal): AsyncGenerator<ModelStreamPart> {
  yield { type: 'error', error: classifyError(err, signal) };
}
