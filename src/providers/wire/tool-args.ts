/** A tool call's streamed arguments as `tool-call.input`: `{}` when empty, the raw text when not valid JSON. */
export function parseToolArgs(raw: string): unknown {
  if (!raw.trim()) return {};
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
