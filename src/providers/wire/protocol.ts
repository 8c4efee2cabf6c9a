import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { Credentials } from './credentials.ts';
import type { ModelEntry, ModelRequest, ThinkingRequest } from './types.ts';

/** What each wire type contributes: the AI SDK model and the provider options of one request. */
export interface Protocol {
  model: LanguageModelV3;
  providerOptions(req: ModelRequest): Record<string, Record<string, unknown>> | undefined;
  /** Output cap of a request (messages_api falls back to the model's `max_output_size`). */
  maxOutputTokens(req: ModelRequest): number | undefined;
}

export interface ProtocolInput {
  creds: Credentials;
  model: ModelEntry;
  headers: Record<string, string>;
}

/** The thinking switch as most protocols see it: an effort when on, `off_effort` (if any) when off. */
export function wireEffort(req: ModelRequest, m: ModelEntry): string | undefined {
  const t = req.thinking;
  if (!t) return undefined;
  return t.enabled ? t.effort : m.off_effort;
}

export function thinkingOn(req: ModelRequest): boolean {
  return req.thinking?.enabled === true;
}

/**
 * The thinking a model is asked for, by its Part B capabilities: none at all (no thinking or
 * reasoning parameter, not even "disabled") unless it declares `thinking` or `always_thinking`;
 * always on for `always_thinking`, which cannot be turned off.
 */
export function modelThinking(t: ThinkingRequest | undefined, capabilities: readonly string[]): ThinkingRequest | undefined {
  if (capabilities.includes('always_thinking')) return t?.enabled ? t : { ...t, enabled: true };
  return capabilities.includes('thinking') ? t : undefined;
}
