import sharp from 'sharp';
import { BASE_PATH } from '../../fixtures/llm/wire-clients.ts';
import type { WireType } from '../../src/providers/wire/types.ts';

/** A PNG of `width` x `height`: a gradient-free fill (small), or noise (does not compress: for byte budgets). */
export async function makePng(width: number, height: number, opts: { noise?: boolean } = {}): Promise<Buffer> {
  if (opts.noise) {
    return sharp({ create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).png().toBuffer();
  }
  return sharp({ create: { width, height, channels: 3, background: { r: 40, g: 120, b: 200 } } }).png().toBuffer();
}

export interface SentImage { width: number; height: number; format: string; bytes: number; mediaType: string }

const DATA_URL = /^data:(image\/[\w.+-]+);base64,(.*)$/s;

/**
 * Every image a request body carries, on any wire protocol: data URLs (chat completions,
 * Responses) and `{media_type|mediaType|mimeType, data}` objects (Anthropic, Gemini), decoded and measured.
 */
export async function imagesIn(body: unknown): Promise<SentImage[]> {
  const found: Array<{ mediaType: string; data: string }> = [];
  const walk = (x: unknown): void => {
    if (typeof x === 'string') {
      const m = DATA_URL.exec(x);
      if (m) found.push({ mediaType: m[1]!, data: m[2]! });
      return;
    }
    if (Array.isArray(x)) return void x.forEach(walk);
    if (!x || typeof x !== 'object') return;
    const o = x as Record<string, unknown>;
    const type = o.media_type ?? o.mediaType ?? o.mimeType ?? o.mime_type;
    if (typeof type === 'string' && type.startsWith('image/') && typeof o.data === 'string') found.push({ mediaType: type, data: o.data });
    for (const v of Object.values(o)) walk(v);
  };
  walk(body);
  return Promise.all(found.map(async ({ mediaType, data }) => {
    const bytes = Buffer.from(data, 'base64');
    const m = await sharp(bytes).metadata();
    return { width: m.width!, height: m.height!, format: m.format!, bytes: bytes.length, mediaType };
  }));
}

/** Whether a request body carries any thinking or reasoning parameter, on any protocol. */
export function reasoningParams(body: any): string[] {
  const out: string[] = [];
  if (body?.thinking !== undefined) out.push('thinking');
  if (body?.reasoning_effort !== undefined) out.push('reasoning_effort');
  if (body?.reasoning !== undefined) out.push('reasoning');
  if (body?.output_config?.effort !== undefined) out.push('output_config.effort');
  if (body?.generationConfig?.thinkingConfig !== undefined) out.push('thinkingConfig');
  if (body?.context_management !== undefined) out.push('context_management');
  return out;
}

/** The protocols the scenario tests run on, with the fixture's name for each. */
export const PROTOCOLS: Array<{ wire: WireType; fixture: 'chat' | 'messages' | 'responses' | 'gemini' }> = [
  { wire: 'chat_compat', fixture: 'chat' },
  { wire: 'messages_api', fixture: 'messages' },
  { wire: 'chat_compat_responses', fixture: 'responses' },
  { wire: 'genai', fixture: 'gemini' },
];

/** config.toml with one provider of `wire` aimed at the fixture, its one model the default, with `capabilities`. */
export function protocolConfig(llmUrl: string, wire: WireType, capabilities: string[], extra = ''): string {
  return `default_model = "p/fixture-model"
auto_session_title = false
default_permission_mode = "yolo"
${extra}

[providers.p]
type = "${wire}"
base_url = "${llmUrl}${BASE_PATH[wire]}"
api_key = "sk-test"

[models."p/fixture-model"]
provider = "p"
model = "fixture-model"
max_context_size = 100000
capabilities = ${JSON.stringify(capabilities)}
`;
}
