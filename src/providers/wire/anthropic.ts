import { createAnthropic } from '@ai-sdk/anthropic';
import type { LanguageModelV3Message, LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { Protocol, ProtocolInput } from './protocol.ts';
import { thinkingOn } from './protocol.ts';
import type { ModelRequest } from './types.ts';

/** Budget-based thinking (older models): tokens per effort level. */
const BUDGET: Record<string, number> = { low: 2048, medium: 8192, high: 16384, xhigh: 32768, max: 63999 };
const EFFORTS = new Set(['low', 'medium', 'high', 'xhigh', 'max']);

/**
 * messages_api: Anthropic Messages. `max_output_size` becomes `max_tokens`; thinking is adaptive
 * (effort-driven) or budget-based per `adaptive_thinking` or the model name; `thinking.keep`
 * becomes a clear-thinking context-management edit, which sends the beta header.
 */
export function messagesApi({ creds, model, headers }: ProtocolInput): Protocol {
  const provider = createAnthropic({ baseURL: creds.baseURL, apiKey: creds.apiKey ?? '', headers });
  const adaptive = model.adaptive_thinking ?? inferAdaptive(model.model);
  return {
    model: provider.languageModel(model.model),
    providerOptions: (req) => {
      const anthropic = thinkingOptions(req, adaptive, model.off_effort);
      return anthropic ? { anthropic } : undefined;
    },
    maxOutputTokens: (req) => req.maxOutputTokens ?? model.max_output_size,
    shapePrompt: withCacheBreakpoints,
  };
}

const EPHEMERAL = { type: 'ephemeral' } as const;

/**
 * Prompt caching (Anthropic "prompt caching"): the stable prefix is marked so each step reads it from the
 * cache instead of paying for it again. Breakpoints (at most 4 a request): the system prompt (the prefix
 * of tools and system), and the last two messages: the last one writes the whole conversation so far, the
 * one before it is where the previous step wrote, so the next step reads everything up to it.
 * Message-level marks land on the message's last content block.
 */
export function withCacheBreakpoints(prompt: LanguageModelV3Prompt): LanguageModelV3Prompt {
  const conversation = prompt.map((m, i) => [m, i] as const).filter(([m]) => m.role !== 'system').map(([, i]) => i);
  const marked = new Set([prompt.findIndex((m) => m.role === 'system'), ...conversation.slice(-2)]);
  return prompt.map((m, i) => {
    if (!marked.has(i) || (Array.isArray(m.content) && m.content.length === 0)) return m;
    const anthropic = { ...(m.providerOptions?.anthropic ?? {}), cacheControl: EPHEMERAL };
    return { ...m, providerOptions: { ...m.providerOptions, anthropic } } as LanguageModelV3Message;
  });
}

function thinkingOptions(req: ModelRequest, adaptive: boolean, offEffort: string | undefined): Record<string, unknown> | undefined {
  if (!req.thinking) return undefined;
  if (!thinkingOn(req)) {
    if (adaptive && offEffort && EFFORTS.has(offEffort)) return { thinking: { type: 'adaptive' }, effort: offEffort };
    return { thinking: { type: 'disabled' } };
  }
  const effort = req.thinking.effort && EFFORTS.has(req.thinking.effort) ? req.thinking.effort : undefined;
  const thinking = adaptive
    ? { type: 'adaptive', display: 'summarized' }
    : { type: 'enabled', budgetTokens: BUDGET[effort ?? 'medium'] };
  const edit = keepEdit(req.thinking.keep);
  return {
    thinking,
    ...(adaptive && effort ? { effort } : {}),
    ...(edit ? { contextManagement: { edits: [edit] } } : {}),
  };
}

/** `keep`: `all`, or a number of most recent assistant turns whose thinking is kept. */
function keepEdit(keep: string | undefined): Record<string, unknown> | undefined {
  if (!keep) return undefined;
  if (keep === 'all') return { type: 'clear_thinking_20251015', keep: 'all' };
  if (/^\d+$/.test(keep) && Number(keep) > 0) return { type: 'clear_thinking_20251015', keep: { type: 'thinking_turns', value: Number(keep) } };
  return undefined;
}

/** Adaptive thinking came with the 4.6 generation: claude-<family>-4-6 and later, and every 5.x. */
export function inferAdaptive(modelId: string): boolean {
  const m = /claude-(?:opus|sonnet|haiku|fable)-(\d+)(?:[-.](\d+))?/.exec(modelId);
  if (!m) return false;
  const major = Number(m[1]);
  const minor = m[2] && m[2].length <= 2 ? Number(m[2]) : 0;
  return major > 4 || (major === 4 && minor >= 6);
}
