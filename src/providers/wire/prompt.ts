import type {
  LanguageModelV3FunctionTool, LanguageModelV3Message, LanguageModelV3Prompt, LanguageModelV3ToolResultOutput, SharedV3ProviderOptions,
} from '@ai-sdk/provider';
import type { ImagePart, ModelMessage, ModelRequest, ProviderMeta, TextPart, ToolResultPart, ToolSpec } from './types.ts';

/** Our neutral messages to the AI SDK prompt; `meta` goes back as providerOptions (signatures, item ids). */
export function toPrompt(req: ModelRequest): LanguageModelV3Prompt {
  const out: LanguageModelV3Prompt = [];
  if (req.system) out.push({ role: 'system', content: req.system });
  for (const m of req.messages) out.push(toMessage(m));
  return out;
}

function toMessage(m: ModelMessage): LanguageModelV3Message {
  switch (m.role) {
    case 'user':
      return { role: 'user', content: m.content.map((p) => (p.type === 'text' ? p : imageFile(p))) };
    case 'assistant':
      return {
        role: 'assistant',
        content: m.content.map((p) => {
          if (p.type === 'text') return p;
          if (p.type === 'thinking') return { type: 'reasoning' as const, text: p.text, ...opts(p.meta) };
          return { type: 'tool-call' as const, toolCallId: p.id, toolName: p.name, input: p.input, ...opts(p.meta) };
        }),
      };
    case 'tool':
      return {
        role: 'tool',
        content: m.content.map((p) => ({ type: 'tool-result' as const, toolCallId: p.tool_use_id, toolName: p.name, output: toolOutput(p) })),
      };
  }
}

function opts(meta: ProviderMeta | undefined): { providerOptions?: SharedV3ProviderOptions } {
  return meta ? { providerOptions: meta as SharedV3ProviderOptions } : {};
}

function imageFile(p: ImagePart) {
  const data = /^https?:\/\//.test(p.data) ? new URL(p.data) : p.data;
  return { type: 'file' as const, mediaType: p.mediaType, data };
}

function toolOutput(p: ToolResultPart): LanguageModelV3ToolResultOutput {
  if (typeof p.content === 'string') return p.is_error ? { type: 'error-text', value: p.content } : { type: 'text', value: p.content };
  const parts = p.content;
  if (parts.every((c): c is TextPart => c.type === 'text')) {
    const value = parts.map((c) => c.text).join('\n');
    return p.is_error ? { type: 'error-text', value } : { type: 'text', value };
  }
  return {
    type: 'content',
    // `image-data`: the Anthropic provider drops a `file-data` image in a tool result (it takes only PDFs there).
    value: parts.map((c) => (c.type === 'text' ? { type: 'text' as const, text: c.text } : { type: 'image-data' as const, data: c.data, mediaType: c.mediaType })),
  };
}

export function toTools(tools: ToolSpec[] | undefined): LanguageModelV3FunctionTool[] | undefined {
  if (!tools?.length) return undefined;
  return tools.map((t) => ({ type: 'function', name: t.name, description: t.description, inputSchema: t.inputSchema as never }));
}
