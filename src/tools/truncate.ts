/** Budget of Bash and Grep output given to the model. */
export const OUTPUT_BUDGET = 30_000;

/** Keeps the head and tail of `s` within `max` chars, with a marker saying how much was cut. */
export function truncateMiddle(s: string, max = OUTPUT_BUDGET): string {
  if (s.length <= max) return s;
  const marker = (cut: number) => `\n... [${cut} characters truncated] ...\n`;
  const keep = max - marker(s.length).length;
  const head = Math.ceil(keep / 2);
  const tail = keep - head;
  return s.slice(0, head) + marker(s.length - keep) + s.slice(s.length - tail);
}

/** Keeps the head of `s` within `max` chars, with a trailing note. */
export function truncateHead(s: string, max = OUTPUT_BUDGET): string {
  if (s.length <= max) return s;
  const note = `\n... [output truncated at ${max} characters]`;
  return s.slice(0, max - note.length) + note;
}
