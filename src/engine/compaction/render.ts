import type { ContentPart, Message } from '../../../protocol/events/turns.ts';
import { cutMiddle, resultText } from './plan.ts';

/**
 * The replaced history as plain text for the summary request: one block per message. Text rather than
 * the protocol's messages, so a summary request never carries tool blocks (no tool specs needed, no
 * call/result pairing rules, no thinking signatures) and can be cut anywhere between blocks.
 */

/** Tool inputs and results are cut to these many characters in the transcript (head and tail kept). */
const INPUT_MAX_CHARS = 2000;
const RESULT_MAX_CHARS = 8000;

function partText(p: ContentPart, resultMax: number): string | undefined {
  switch (p.type) {
    case 'text':
      return p.text;
    case 'tool_use':
      return `[called tool ${p.name}: ${cutMiddle(JSON.stringify(p.input ?? {}), INPUT_MAX_CHARS)}]`;
    case 'tool_result':
      return `[result of ${p.name ?? 'a tool'}${p.is_error ? ' (error)' : ''}]\n${cutMiddle(resultText(p), resultMax)}`;
    case 'image':
    case 'video':
      return `[${p.type}]`;
    case 'thinking':
      return undefined;
    default:
      return `[${p.type}]`;
  }
}

function heading(m: Message): string {
  if (m.metadata?.compaction) return 'Summary of the conversation before';
  if (m.role === 'user') return m.metadata?.task_notification ? 'Notification' : 'User';
  if (m.role === 'tool') return 'Tool results';
  return 'Assistant';
}

/** One block per message (partial output of interrupted attempts left out); `maxChars` bounds a result so a block fits a chunk. */
export function transcriptBlocks(messages: readonly Message[], maxChars = Infinity): string[] {
  const resultMax = Math.max(500, Math.min(RESULT_MAX_CHARS, Math.floor(maxChars / 4)));
  const out: string[] = [];
  for (const m of messages) {
    if (m.role === 'assistant' && m.metadata?.interrupted) continue;
    const body = m.content.flatMap((p) => partText(p, resultMax) ?? []).join('\n');
    if (body.trim()) out.push(`### ${heading(m)}\n${body}`);
  }
  return out;
}

/** Blocks packed in order into chunks of at most `maxChars` (a block too large on its own is cut to fit). */
export function packChunks(blocks: readonly string[], maxChars: number): string[] {
  const chunks: string[] = [];
  let cur = '';
  for (const raw of blocks) {
    const b = cutMiddle(raw, maxChars);
    if (cur && cur.length + b.length + 2 > maxChars) {
      chunks.push(cur);
      cur = '';
    }
    cur = cur ? `${cur}\n\n${b}` : b;
  }
  if (cur) chunks.push(cur);
  return chunks;
}
