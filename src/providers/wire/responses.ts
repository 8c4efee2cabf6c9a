import { createOpenAI } from '@ai-sdk/openai';
import type { Protocol, ProtocolInput } from './protocol.ts';
import { thinkingOn, wireEffort } from './protocol.ts';
import type { ModelRequest } from './types.ts';

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
