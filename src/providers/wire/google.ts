import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createVertex } from '@ai-sdk/google-vertex';
import { createVertex as createVertexServiceAccount } from '@ai-sdk/google-vertex/edge';
import { APICallError } from '@ai-sdk/provider';
import { assertCloudAiCredentials } from './credentials.ts';
import { sseLineFetch } from './sse-line-fetch.ts';
import type { Protocol, ProtocolInput } from './protocol.ts';
import { thinkingOn } from './protocol.ts';
import type { ModelEntry, ModelRequest } from './types.ts';

const LEVEL: Record<string, string> = { low: 'low', medium: 'medium', high: 'high', xhigh: 'high', max: 'high' };
const BUDGET: Record<string, number> = { low: 1024, medium: 8192, high: 24576, xhigh: 32768, max: 32768 };
const LEVELS = new Set(['minimal', 'low', 'medium', 'high']);

/** genai: the Gemini API (`x-goog-api-key`). */
export function genai({ creds, model, headers }: ProtocolInput): Protocol {
  const provider = createGoogleGenerativeAI({ baseURL: creds.baseURL, apiKey: creds.apiKey ?? '', headers });
  return googleProtocol(provider.languageModel(model.model), model, 'google');
}

/**
 * cloud_ai: Vertex AI. With an API key (config or env table) it runs in express mode
 * (`x-goog-api-key`, base URL `.../publishers/google`); otherwise a service account from the env
 * table (GOOGLE_CLIENT_EMAIL, GOOGLE_PRIVATE_KEY, GOOGLE_VERTEX_PROJECT, GOOGLE_VERTEX_LOCATION)
 * is exchanged for a token. Every value is passed explicitly so nothing is read from process.env.
 */
export function cloudAi({ creds, model, headers }: ProtocolInput): Protocol {
  const e = creds.env;
  if (creds.apiKey) {
    const provider = createVertex({ apiKey: creds.apiKey, baseURL: creds.baseURL, headers, fetch: vertexStreamErrors });
    return googleProtocol(provider.languageModel(model.model), model, 'vertex');
  }
  assertCloudAiCredentials(creds);
  const { GOOGLE_CLIENT_EMAIL: clientEmail, GOOGLE_PRIVATE_KEY: privateKey, GOOGLE_VERTEX_PROJECT: project, GOOGLE_VERTEX_LOCATION: location } = e as Record<string, string>;
  const provider = createVertexServiceAccount({
    project, location, headers, baseURL: creds.baseURL, fetch: vertexStreamErrors,
    googleCredentials: { clientEmail, privateKey, ...(e.GOOGLE_PRIVATE_KEY_ID ? { privateKeyId: e.GOOGLE_PRIVATE_KEY_ID } : {}) },
  });
  return googleProtocol(provider.languageModel(model.model), model, 'vertex');
}

/**
 * The Vertex copy of the Gemini model ignores `{"error": ...}` chunks inside a 200 stream and
 * reports a plain finish; this fails the stream instead, with the error's own status.
 */
const vertexStreamErrors = sseLineFetch((line) => {
  if (!line.startsWith('data:') || !line.includes('"error"')) return line;
  let parsed: { error?: { code?: number; message?: string; status?: string } } | undefined;
  try {
    parsed = JSON.parse(line.slice(5));
  } catch {
    return line;
  }
  const e = parsed?.error;
  if (!e) return line;
  throw new APICallError({
    message: e.message ?? 'Vertex stream error', url: '', requestBodyValues: undefined,
    statusCode: e.code ?? 500, responseBody: JSON.stringify(parsed), data: parsed,
  });
});

function googleProtocol(lm: Protocol['model'], m: ModelEntry, key: 'google' | 'vertex'): Protocol {
  return {
    model: lm,
    providerOptions: (req) => {
      const thinkingConfig = thinkingConfigFor(req, m);
      return thinkingConfig ? { [key]: { thinkingConfig } } : undefined;
    },
    maxOutputTokens: (req) => req.maxOutputTokens,
  };
}

/** Gemini 3 takes a thinking level; 2.x a token budget. Thinking off sends `off_effort` as the level, if set. */
function thinkingConfigFor(req: ModelRequest, m: ModelEntry): Record<string, unknown> | undefined {
  if (!req.thinking) return undefined;
  if (!thinkingOn(req)) return m.off_effort && LEVELS.has(m.off_effort) ? { thinkingLevel: m.off_effort, includeThoughts: false } : undefined;
  const effort = req.thinking.effort;
  if (!effort) return { includeThoughts: true };
  return usesLevels(m.model) ? { includeThoughts: true, thinkingLevel: LEVEL[effort] ?? 'high' } : { includeThoughts: true, thinkingBudget: BUDGET[effort] ?? 8192 };
}

function usesLevels(modelId: string): boolean {
  const v = /gemini-(\d+)/.exec(modelId);
  return !v || Number(v[1]) >= 3;
}
