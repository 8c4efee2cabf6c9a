import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { nodeFetch } from './http-fetch.ts';
import type { Protocol, ProtocolInput } from './protocol.ts';
import { thinkingOn, wireEffort } from './protocol.ts';
import { reasoningKeyFetch, renameOutgoingReasoning } from './reasoning-key.ts';
import type { ModelRequest } from './types.ts';

/** chat_compat: OpenAI chat completions and compatible gateways (`reasoning_effort`, `reasoning_key`). */
export function chatCompat({ creds, model, headers }: ProtocolInput): Protocol {
  const key = model.reasoning_key && !['reasoning_content', 'reasoning'].includes(model.reasoning_key) ? model.reasoning_key : undefined;
  const provider = createOpenAICompatible({
    name: 'chat_compat',
    baseURL: creds.baseURL!,
    apiKey: creds.apiKey,
    headers,
    includeUsage: true,
    fetch: key ? reasoningKeyFetch(key, nodeFetch) : nodeFetch,
    ...(key ? { transformRequestBody: renameOutgoingReasoning(key) } : {}),
  });
  return {
    model: provider.chatModel(model.model),
    providerOptions: (req) => {
      const effort = wireEffort(req, model);
      return effort ? { chat_compat: { reasoningEffort: effort } } : undefined;
    },
    maxOutputTokens: (req) => req.maxOutputTokens,
  };
}

/**
 * svc: the managed provider, OpenAI-compatible; while thinking is on the body carries
 * `thinking: {keep}` (Part B thinking.keep passthrough). Unknown provider-option keys are
 * copied into the body by @ai-sdk/openai-compatible.
 */
export function svc({ creds, model, headers }: ProtocolInput): Protocol {
  const provider = createOpenAICompatible({ name: 'svc', baseURL: creds.baseURL!, apiKey: creds.apiKey, headers, includeUsage: true, fetch: nodeFetch });
  return {
    model: provider.chatModel(model.model),
    providerOptions: (req) => {
      const effort = wireEffort(req, model);
      const keep = thinkingOn(req) && req.thinking?.keep ? { thinking: { keep: req.thinking.keep } } : {};
      const opts = { ...(effort ? { reasoningEffort: effort } : {}), ...keep };
      return Object.keys(opts).length ? { svc: opts } : undefined;
    },
    maxOutputTokens: (req) => req.maxOutputTokens,
  };
}

/** chat_compat_responses: the OpenAI Responses API; reasoning summaries stream as reasoning deltas. */
export function responses({ creds, model, headers }: ProtocolInput): Protocol {
  const provider = createOpenAI({ baseURL: creds.baseURL, apiKey: creds.apiKey ?? '', headers });
  return {
    model: provider.responses(model.model),
    providerOptions: (req: ModelRequest) => {
      const effort = wireEffort(req, model);
      if (thinkingOn(req)) {
        // forceReasoning: the model id may be unknown to the SDK (gateways); the user enabled thinking.
        return { openai: { forceReasoning: true, reasoningSummary: 'auto', ...(effort ? { reasoningEffort: effort } : {}) } };
      }
      return effort ? { openai: { reasoningEffort: effort } } : undefined;
    },
    maxOutputTokens: (req) => req.maxOutputTokens,
  };
}
