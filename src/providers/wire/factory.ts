import { assertCloudAiCredentials, resolveCredentials } from './credentials.ts';
import { classifyError, WireConfigError } from './errors.ts';
import { chatCompat, svc, type Streamer } from './chat-completions/client.ts';
import { modelThinking, type Protocol, type ProtocolInput } from './protocol.ts';
import { toPrompt, toTools } from './prompt.ts';
import { streamModel } from './stream.ts';
import { WIRE_TYPES, type WireError, type ModelClient, type ModelEntry, type ModelRequest, type ModelStreamPart, type ProviderEntry, type WireType } from './types.ts';

/**
 * chat completions (chat_compat, svc) is read straight off the socket; the other protocols go
 * through the AI SDK, whose modules load on a protocol's first request: a daemon that only talks
 * chat completions never loads them (about 50 ms less to import the server here).
 */
const BUILDERS: Record<WireType, (input: ProtocolInput) => Streamer> = {
  svc,
  chat_compat: chatCompat,
  chat_compat_responses: viaSdk(() => import('./responses.ts').then((m) => m.responses)),
  messages_api: viaSdk(() => import('./anthropic.ts').then((m) => m.messagesApi)),
  genai: viaSdk(() => import('./google.ts').then((m) => m.genai)),
  cloud_ai: viaSdk(() => import('./google.ts').then((m) => m.cloudAi)),
};

/**
 * Builds the client for a resolved provider entry and model entry. Throws WireConfigError
 * (kind `auth` for missing credentials, `bad_request` for an unknown type) before any request.
 * A model's own `base_url` applies only together with its `protocol` (Part B models).
 */
export function createModelClient(provider: ProviderEntry, model: ModelEntry): ModelClient {
  const type = (model.base_url && model.protocol ? model.protocol : provider.type) as WireType;
  if (!WIRE_TYPES.includes(type)) throw new WireConfigError(`unknown provider type: ${String(type)}`);
  const baseOverride = model.base_url && model.protocol ? model.base_url : undefined;
  const creds = resolveCredentials(type, provider, baseOverride, type !== 'cloud_ai');
  if (type === 'cloud_ai') assertCloudAiCredentials(creds);
  const streamer = BUILDERS[type]({ creds, model, headers: { ...(provider.custom_headers ?? {}) } });
  const capabilities = model.capabilities ?? [];
  // One gate for every caller (turns, compaction, titles, subagents): a model is never sent a
  // thinking parameter it does not declare, and an always-thinking one never has it turned off.
  const stream: Streamer = (req, signal) => {
    const thinking = modelThinking(req.thinking, capabilities);
    return streamer(thinking === req.thinking ? req : { ...req, thinking }, signal);
  };
  return { wireType: type, modelId: model.model, capabilities, stream };
}

function viaSdk(load: () => Promise<(input: ProtocolInput) => Protocol>): (input: ProtocolInput) => Streamer {
  return (input) => {
    let protocol: Promise<Protocol> | undefined;
    return (req, signal) => sdkRequest((protocol ??= load().then((build) => build(input))), req, signal);
  };
}

async function* sdkRequest(protocol: Promise<Protocol>, req: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelStreamPart> {
  let ready: Protocol;
  try {
    ready = await protocol;
  } catch (err) {
    yield { type: 'error', error: classifyError(err, signal) };
    return;
  }
  yield* runRequest(ready, req, signal);
}

/** The request's stream through the AI SDK model. */
function runRequest(protocol: Protocol, req: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelStreamPart> {
  req.trace?.('wire.request');
  let call;
  try {
    call = {
      prompt: protocol.shapePrompt ? protocol.shapePrompt(toPrompt(req)) : toPrompt(req),
      tools: toTools(req.tools),
      maxOutputTokens: protocol.maxOutputTokens(req),
      providerOptions: protocol.providerOptions(req) as never,
      headers: req.headers,
    };
  } catch (err) {
    return failed(classifyError(err, signal));
  }
  req.trace?.('wire.call');
  return streamModel(protocol.model, call, signal, req.trace);
}

async function* failed(error: WireError): AsyncGenerator<ModelStreamPart> {
  yield { type: 'error', error };
}
