import type { ContentPart, Message } from '../contract.ts';
import type { SessionUsage } from './session-usage.ts';

/** Rough tokens per character of the usual estimate (Part B token_counting "estimated"). */
const CHARS_PER_TOKEN = 4;
/** Media are counted flat: their encoded size says nothing of their token cost. */
const MEDIA_CHARS = 4000;

function partChars(p: ContentPart): number {
  switch (p.type) {
    case 'text':
      return p.text?.length ?? 0;
    case 'thinking':
      return p.thinking?.length ?? 0;
    case 'image':
    case 'video':
      return MEDIA_CHARS;
    default:
      return JSON.stringify(p).length;
  }
}

export function messageChars(m: Message): number {
  return Array.isArray(m.content) ? m.content.reduce((n, p) => n + partChars(p), 0) : 0;
}

export type TokenCountingStrategy = 'measured+estimated' | 'measured' | 'estimated';

/** The externally reported context size of a session under a token_counting strategy. */
export function contextTokens(u: SessionUsage, strategy: string): number {
  const estimate = (chars: number) => Math.ceil(chars / CHARS_PER_TOKEN);
  if (strategy === 'measured') return u.measured_context;
  if (strategy === 'estimated') return estimate(u.total_chars);
  // measured+estimated: before any measure, the estimate is all there is.
  return u.measured ? u.measured_context + estimate(u.tail_chars) : estimate(u.total_chars);
}
