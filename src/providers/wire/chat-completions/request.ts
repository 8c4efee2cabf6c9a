import type { ImagePart, ModelMessage, ModelRequest, ProviderMeta, TextPart, ToolResultPart, ToolSpec } from '../types.ts';

/**
 * The body of a streamed OpenAI chat-completions request (`POST {base}/chat/completions`), the
 * same fields @ai-sdk/openai-compatible sent for us before: `stream_options.include_usage` so
 * the usage chunk arrives, `reasoning_effort`, and `extra` keys (svc's `thinking`) at the top.
 */
export interface ChatBodyOptions {
  model: string;
  maxTokens?: number;
  reasoningEffort?: string;
  extra?: Record<string, unknown>;
  /** A gateway's own name for `reasoning_content` on replayed assistant messages (`reasoning_key`). */
  reasoningKey?: string;
}

/**
 * The body as JSON text. Tool definitions (JSON Schemas, most of a first request's bytes) are
 * the same objects request after request (src/tools/registry.ts caches them), so each one is
 * serialized once and spliced in.
 */
export function chatBodyJson(req: ModelRequest, o: ChatBodyOptions): string {
  return chatBodyChunks(req, o).join('');
}

/** Chunks of the body are joined up to about this many characters (below V8's large-object size, 128 KiB). */
const CHUNK_CHARS = 32 * 1024;

/**
 * The body as JSON text in pieces, to be written one after the other: the body grows with the
 * session's history (a long session's request is hundreds of KB), and as one string each request
 * would be a large object that only a full GC frees (bench/stream-load.ts: ~15 MB of them between
 * GCs with 20 busy sessions). Each piece is a few messages, at most ~32 K characters unless one
 * message is larger.
 */
export function chatBodyChunks(req: ModelRequest, o: ChatBodyOptions): string[] {
  const { messages: _messages, ...extra } = o.extra ?? {};
  const head = JSON.stringify({ model: o.model, max_tokens: o.maxTokens, ...extra, reasoning_effort: o.reasoningEffort });
  const out: string[] = [];
  let cur = `${head.slice(0, -1)},"messages":[`;
  let first = true;
  const push = (m: Record<string, unknown>) => {
    const json = JSON.stringify(m);
    const piece = first ? json : `,${json}`;
    first = false;
    if (cur.length && cur.length + piece.length > CHUNK_CHARS) {
      out.push(cur);
      cur = piece;
    } else cur += piece;
  };
  if (req.system) push({ role: 'system', content: req.system });
  const reasoningKey = o.reasoningKey ?? 'reasoning_content';
  for (const m of req.messages) appendMessage(push, m, reasoningKey);
  out.push(cur);
  const tools = req.tools?.length ? `,"tools":[${req.tools.map(toolJson).join(',')}]` : '';
  out.push(`]${tools},"stream":true,"stream_options":{"include_usage":true}}`);
  return out;
}

const toolJsonCache = new WeakMap<ToolSpec, string>();

function toolJson(t: ToolSpec): string {
  let json = toolJsonCache.get(t);
  if (json === undefined) {
    json = JSON.stringify({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } });
    toolJsonCache.set(t, json);
  }
  return json;
}

function appendMessage(push: (m: Record<string, unknown>) => void, m: ModelMessage, reasoningKey: string): void {
  switch (m.role) {
    case 'user':
      push({ role: 'user', content: m.content.length === 1 && m.content[0].type === 'text' ? m.content[0].text : m.content.map(userPart) });
      return;
    case 'assistant': {
      let text = '';
      let reasoning = '';
      const calls: Array<Record<string, unknown>> = [];
      for (const p of m.content) {
        if (p.type === 'text') text += p.text;
        else if (p.type === 'thinking') reasoning += p.text;
        else calls.push({ id: p.id, type: 'function', function: { name: p.name, arguments: JSON.stringify(p.input) }, ...extraContent(p.meta) });
      }
      push({
        role: 'assistant',
        content: calls.length ? text || null : text,
        ...(reasoning ? { [reasoningKey]: reasoning } : {}),
        ...(calls.length ? { tool_calls: calls } : {}),
      });
      return;
    }
    case 'tool':
      for (const r of m.content) push({ role: 'tool', tool_call_id: r.tool_use_id, content: toolContent(r) });
  }
}

function userPart(p: TextPart | ImagePart): Record<string, unknown> {
  if (p.type === 'text') return { type: 'text', text: p.text };
  return { type: 'image_url', image_url: { url: imageUrl(p) } };
}

function imageUrl(p: ImagePart): string {
  if (/^https?:\/\//.test(p.data)) return p.data;
  return `data:${p.mediaType === 'image/*' ? 'image/jpeg' : p.mediaType};base64,${p.data}`;
}

/** Chat completions has no image tool results: text joins; mixed content goes out as JSON. */
function toolContent(r: ToolResultPart): string {
  if (typeof r.content === 'string') return r.content;
  if (r.content.every((c): c is TextPart => c.type === 'text')) return r.content.map((c) => c.text).join('\n');
  return JSON.stringify(r.content.map((c) => (c.type === 'text' ? c : { type: 'file-data', data: c.data, mediaType: c.mediaType })));
}

/** Gemini's OpenAI-compatible endpoint signs tool calls; the signature must come back with the call. */
function extraContent(meta: ProviderMeta | undefined): Record<string, unknown> {
  const extra = meta?.chat_completions?.extra_content;
  return extra ? { extra_content: extra } : {};
}
