import type { ModelMessage, TextPart } from '../../providers/wire/types.ts';

/** What the model is asked at the end of the history it summarizes. */
const REQUEST = `Your context window is being compacted. Write a summary of the conversation so far that lets you continue the work without it.
Include: the user's goals and requests (quote the latest one), decisions made, files and code touched with the important details,
commands run and their outcomes, errors met and how they were fixed, and the work still pending with the next step.
Answer with the summary only, as plain text; do not call tools.`;

/** First line of the summary message, so the model (and a reader) knows what it is. */
export const SUMMARY_HEADER = '[Summary of the earlier conversation, written when the context was compacted]';

/** The summary request: the history to replace, then the request (with the user's instruction) as a last user turn. */
export function summaryRequest(history: ModelMessage[], instruction?: string): ModelMessage[] {
  const text = instruction ? `${REQUEST}\n\nAdditional instruction from the user: ${instruction}` : REQUEST;
  const ask: TextPart = { type: 'text', text };
  const last = history[history.length - 1];
  // Some providers reject two user turns in a row: fold the request into a trailing user turn.
  if (last?.role === 'user') return [...history.slice(0, -1), { role: 'user', content: [...last.content, ask] }];
  return [...history, { role: 'user', content: [ask] }];
}

export function summaryText(summary: string): string {
  return `${SUMMARY_HEADER}\n\n${summary.trim()}`;
}
