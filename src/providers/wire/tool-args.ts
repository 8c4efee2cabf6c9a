import { jsonBoundsViolation } from '../../../protocol/json-bounds.ts';

/**
 * Nesting a model's tool arguments may have: what a client may send as a tool
 * input (LIMITS.toolJson in http/schemas/common.ts), since both are journaled.
 * Size is not capped here: the raw text is stored either way.
 */
const TOOL_ARGS_BOUNDS = { depth: 32, bytes: Number.MAX_SAFE_INTEGER, entries: Number.MAX_SAFE_INTEGER };

/**
 * A tool call's streamed arguments as `tool-call.input`: `{}` when empty, the
 * raw text when not valid JSON or nested deeper than a stored value may be (the
 * tool then reports invalid arguments, and the call is journaled as text).
 */
export function parseToolArgs(raw: string): unknown {
  if (!raw.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return raw;
  }
  return jsonBoundsViolation(parsed, TOOL_ARGS_BOUNDS) ? raw : parsed;
}
