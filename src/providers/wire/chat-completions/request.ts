import type { ImagePart, ModelMessage, VideoPart, ModelRequest, ProviderMeta, TextPart, ToolResultPart, ToolSpec } from '../types.ts';

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
  const messages: Array<Record<string, unknown>> = [];
  if (req.system) messages.push({ role: 'system', content: req.system });
  for (const m of req.messages) appendMessage(messages, m, o.reasoningKey ?? 'reasoning_content');
  const head = JSON.stringify({ model: o.model, max_tokens: o.maxTokens, ...o.extra, reasoning_effort: o.reasoningEffort, messages });
  const tools = req.tools?.length ? `,"tools":[${req.tools.map(toolJson).join(',')}]` : '';
  return `${head.slice(0, -1)}${tools},"stream":true,"stream_options":{"include_usage":true}}`;
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

function appendMessage(out: Array<Record<string, unknown>>, m: ModelMessage, reasoningKey: string): void {
  switch (m.role) {
    case 'user':
      out.push({ role: 'user', content: m.content.length === 1 && m.content[0].type === 'text' ? m.content[0].text : m.content.map(userPart) });
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
      out.push({
        role: 'assistant',
        content: calls.length ? text || null : text,
        ...(reasoning ? { [reasoningKey]: reasoning } : {}),
        ...(calls.length ? { tool_calls: calls } : {}),
      });
      return;
    }
    case 'tool': {
      const images: Array<Record<string, unknown>> = [];
      for (const r of m.content) {
        out.push({ role: 'tool', tool_call_id: r.tool_use_id, content: toolText(r) });
        const own = typeof r.content === 'string' ? [] : r.content.filter((c): c is ImagePart => c.type === 'image');
        if (own.length) images.push({ type: 'text', text: `[images of tool result ${r.tool_use_id}]` }, ...own.map(userPart));
      }
      // A tool message holds text only: the images follow as a user message, after every result of the step.
      if (images.length) out.push({ role: 'user', content: images });
    }
  }
}

/** `video_url` is the chat-completions extension of the gateways that take video (Kimi, Qwen). */
function userPart(p: TextPart | ImagePart | VideoPart): Record<string, unknown> {
  if (p.type === 'text') return { type: 'text', text: p.text };
  if (p.type === 'video') return { type: 'video_url', video_url: { url: mediaUrl(p, 'video/mp4') } };
  return { type: 'image_url', image_url: { url: mediaUrl(p, 'image/jpeg') } };
}

function mediaUrl(p: ImagePart | VideoPart, anyType: string): string {
  if (/^https?:\/\//.test(p.data)) return p.data;
  return `data:${p.mediaType.endsWith('/*') ? anyType : p.mediaType};base64,${p.data}`;
}

/** The text of a tool result (its images are sent apart, see appendMessage). */
function toolText(r: ToolResultPart): string {
  if (typeof r.content === 'string') return r.content;
  return r.content.map((c) => (c.type === 'text' ? c.text : `[image ${c.mediaType}: follows in the next user message]`)).join('\n');
}

/** Gemini's OpenAI-compatible endpoint signs tool calls; the signature must come back with the call. */
function extraContent(meta: ProviderMeta | undefined): Record<string, unknown> {
  const extra = meta?.chat_completions?.extra_content;
  return extra ? { extra_content: extra } : {};
}
