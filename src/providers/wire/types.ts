/**
 * The provider-neutral model interface the engine drives. One client per (provider, model) entry;
 * the wire protocol behind it (chat completions, Responses, Messages, Gemini, Vertex) is invisible
 * here. Shapes are ours: camelCase in code, converted to each protocol by chat-completions/ (chat_compat,
 * svc) or by the AI SDK providers (the others).
 */

/** Opaque provider data to hand back verbatim on the next request (thinking signatures, item ids). */
export type ProviderMeta = Record<string, Record<string, unknown>>;

export interface TextPart { type: 'text'; text: string }
/** An image: `data` is base64 (no data: prefix) or an http(s) URL. */
export interface ImagePart { type: 'image'; data: string; mediaType: string }
/** A video (only to models with `video_in`): `data` is base64 (no data: prefix) or an http(s) URL. */
export interface VideoPart { type: 'video'; data: string; mediaType: string }
/** Model reasoning from an earlier step; `meta` (signatures) lets protocols that require it replay it. */
export interface ThinkingPart { type: 'thinking'; text: string; meta?: ProviderMeta }
export interface ToolUsePart { type: 'tool_use'; id: string; name: string; input: unknown; meta?: ProviderMeta }
export interface ToolResultPart {
  type: 'tool_result';
  tool_use_id: string;
  /** The tool name; protocols such as Gemini need it beside the id. */
  name: string;
  content: string | Array<TextPart | ImagePart>;
  is_error?: boolean;
}

export type UserMessage = { role: 'user'; content: Array<TextPart | ImagePart | VideoPart> };
export type AssistantMessage = { role: 'assistant'; content: Array<TextPart | ThinkingPart | ToolUsePart> };
export type ToolMessage = { role: 'tool'; content: ToolResultPart[] };
export type ModelMessage = UserMessage | AssistantMessage | ToolMessage;

export interface ToolSpec {
  name: string;
  description?: string;
  /** JSON Schema (draft 7) of the tool input object. */
  inputSchema: Record<string, unknown>;
}

export interface ThinkingRequest {
  enabled: boolean;
  /** `low` / `medium` / `high` / `xhigh` / `max` (already validated against the model's efforts). */
  effort?: string;
  /** Part B `thinking.keep`: sent by `svc` and `messages_api` only while thinking is on. */
  keep?: string;
}

export interface ModelRequest {
  system?: string;
  messages: ModelMessage[];
  tools?: ToolSpec[];
  thinking?: ThinkingRequest;
  /** Output cap; defaults to the model entry's `max_output_size` (messages_api only reads that one). */
  maxOutputTokens?: number;
  /** Extra headers for this request, over the provider's `custom_headers`. */
  headers?: Record<string, string>;
  /**
   * Marks the request's progress through the wire (the prompt-latency trace, docs/benchmarks.md): the caller passes
   * one when it traces; the wire calls it with a label at each stage and knows nothing of what it records.
   */
  trace?: WireTrace;
}

/** A label recorder for one model request's stages (`wire.request`, `fetch.send`, `fetch.headers`, ...). */
export type WireTrace = (label: string) => void;

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'error' | 'other';

/** Token counts of one model request; absent counts are 0. */
export interface Usage { input: number; output: number; cache_read: number; cache_creation: number }

export type WireErrorKind = 'transient' | 'quota' | 'auth' | 'bad_request' | 'context_overflow' | 'aborted' | 'other';

/**
 * A classified failure. `transient` (connection errors, timeouts, dropped streams, 429, 5xx) is the
 * only kind loop_control retries; `quota` is a 429 for exhausted quota or balance; `context_overflow`
 * is the provider refusing a request longer than the model's context window (the engine compacts and
 * retries once); `aborted` means our own AbortSignal fired.
 */
export interface WireError {
  kind: WireErrorKind;
  status?: number;
  message: string;
  retry_after_ms?: number;
}

/**
 * What a stream yields, in order: deltas as they arrive, a `tool-call` once a call's arguments are
 * complete, then `usage` and `finish` (both exactly once on success). On failure the last part is
 * `error` and no `finish` follows.
 */
export type ModelStreamPart =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  /** End of a reasoning block; `meta` carries what must be sent back with the ThinkingPart. */
  | { type: 'reasoning-end'; meta?: ProviderMeta }
  | { type: 'tool-call-start'; id: string; name: string }
  | { type: 'tool-call-delta'; id: string; argsTextDelta: string }
  /** `input` is the parsed JSON arguments (`{}` when empty; the raw string when not valid JSON). */
  | { type: 'tool-call'; id: string; name: string; input: unknown; meta?: ProviderMeta }
  | { type: 'usage'; usage: Usage }
  | { type: 'finish'; reason: FinishReason; raw?: string }
  | { type: 'error'; error: WireError };

export interface ModelClient {
  /** The protocol and model id, for logs and the session snapshot. */
  readonly wireType: WireType;
  readonly modelId: string;
  /**
   * The model's effective Part B `capabilities`: thinking parameters go only to `thinking` /
   * `always_thinking` models, images only to `image_in` ones, videos only to `video_in` ones.
   */
  readonly capabilities: readonly string[];
  /** Never throws: failures (including abort) end the iteration with an `error` part. */
  stream(req: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamPart>;
}

export const WIRE_TYPES = ['svc', 'messages_api', 'chat_compat', 'chat_compat_responses', 'genai', 'cloud_ai'] as const;
export type WireType = (typeof WIRE_TYPES)[number];

/** A resolved `[providers.<name>]` entry (credentials come only from here). */
export interface ProviderEntry {
  type?: string;
  base_url?: string;
  api_key?: string;
  env?: Record<string, string>;
  custom_headers?: Record<string, string>;
}

/** A resolved `[models.<alias>]` entry, overrides applied. */
export interface ModelEntry {
  model: string;
  /** Part B `capabilities` (overrides applied); none declared means none: no thinking parameters are sent. */
  capabilities?: string[];
  max_output_size?: number;
  reasoning_key?: string;
  adaptive_thinking?: boolean;
  off_effort?: string;
  /** Per-model endpoint; used only with `protocol`. */
  base_url?: string;
  protocol?: string;
}
