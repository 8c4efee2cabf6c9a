import { createHash } from 'node:crypto';

/** The longest tool name model APIs accept (OpenAI-style APIs refuse longer ones; Anthropic's limit is the same). */
export const MAX_TOOL_NAME = 64;
/** `_` and 8 hex digits of the full name's SHA-256. */
const SUFFIX = 9;

/**
 * The name a server's tool is offered to the model under: `mcp__<server>__<tool>`, characters model APIs
 * refuse (anything but letters, digits, `_` and `-`, in the server's name as in the tool's) replaced by `_`. A name over 64 characters is cut and ends with `_` plus 8 hex digits of the full
 * name's hash, so it stays the same across restarts and two long names sharing a prefix still differ. The
 * cut takes the tool part first: `mcp__<server>__` is kept whenever the server name leaves room (up to 48
 * characters), so `mcp__<server>__*` globs keep matching.
 */
export function exposedName(server: string, tool: string): string {
  const full = `mcp__${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_');
  if (full.length <= MAX_TOOL_NAME) return full;
  const suffix = `_${createHash('sha256').update(full).digest('hex').slice(0, SUFFIX - 1)}`;
  return full.slice(0, MAX_TOOL_NAME - SUFFIX) + suffix;
}

/**
 * What an `mcp__` name or glob written against raw server and tool names (`mcp__docs.site__*`) must be to
 * match the exposed names (`mcp__docs_site__*`): the same characters replaced, the glob's `*` and `?` kept. Names cut for length
 * (over 64 characters) are not predicted here.
 */
export function exposedPattern(pattern: string): string {
  return pattern.replace(/[^A-Za-z0-9_*?-]/g, '_');
}
