/** What the model is asked for: the sections a summary must cover. */
const WHAT = `Include: the user's goals and requests (quote the latest one word for word), decisions made, files and code touched with
the important details, commands run and their outcomes, errors met and how they were fixed, and the work still pending with the next step.
Answer with the summary only, as plain text; do not call tools.`;

/** First line of the summary message, so the model (and a reader) knows what it is. */
export const SUMMARY_HEADER = '[Summary of the earlier conversation, written when the context was compacted]';

const withInstruction = (text: string, instruction?: string) => (instruction ? `${text}\n\nAdditional instruction from the user: ${instruction}` : text);

/** The request for one summary of the whole replaced history (it fits one request). */
export function wholeRequest(transcript: string, instruction?: string): string {
  return withInstruction(`Your context window is being compacted. Below is the conversation so far, oldest first. Write a summary of it
that lets you continue the work without it.
${WHAT}

<conversation>
${transcript}
</conversation>`, instruction);
}

/** The request for the summary of one part of a history too long for one request. */
export function partRequest(transcript: string, part: number, parts: number, instruction?: string): string {
  return withInstruction(`Your context window is being compacted. The conversation is too long for one request, so it is summarized in
parts: below is part ${part} of ${parts}, oldest first. Write a summary of this part that lets you continue the work; the part summaries
are merged afterwards.
${WHAT}

<conversation-part>
${transcript}
</conversation-part>`, instruction);
}

/** The request merging part summaries (oldest first) into one. */
export function mergeRequest(summaries: string, instruction?: string): string {
  return withInstruction(`Your context window is being compacted. Below are summaries of consecutive parts of the conversation, oldest
first. Merge them into one summary that lets you continue the work without them; where they disagree, the later part is the current state.
${WHAT}

<part-summaries>
${summaries}
</part-summaries>`, instruction);
}

export function summaryText(summary: string, carried: string): string {
  return `${SUMMARY_HEADER}\n\n${summary.trim()}${carried ? `\n\n${carried}` : ''}`;
}

/** The model's text of an earlier summary message (its header and carried state taken off), for a compaction that only cuts. */
export function summaryBody(text: string, carried: string): string {
  let body = text.startsWith(SUMMARY_HEADER) ? text.slice(SUMMARY_HEADER.length) : text;
  if (carried && body.trimEnd().endsWith(carried)) body = body.trimEnd().slice(0, -carried.length);
  return body.trim();
}

/** The summary of a compaction with nothing before the running turn to summarize (only its tool results were cut). */
export const NOTHING_EARLIER = 'Nothing came before the current turn. Its large tool results below were cut to fit the context window (head and tail kept).';
