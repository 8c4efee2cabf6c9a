import { globMatches } from '../lib/glob.ts';

export interface ToolLists { enabled: readonly string[]; disabled: readonly string[] }

/**
 * Part B "tools": built-ins match by exact case-sensitive name, MCP tools by glob on
 * `mcp__` patterns only; a wildcard elsewhere or an mcp__ entry without its tool
 * segment never matches.
 */
export function toolMatches(entry: string, name: string): boolean {
  if (entry.startsWith('mcp__')) {
    if (entry.split('__').length < 3 || !name.startsWith('mcp__')) return false;
    return globMatches(entry, name);
  }
  return entry === name;
}

/** Whether `name` passes `enabled` (when non-empty), then `disabled`, then the prompt's list. */
export function toolAllowed(name: string, lists: ToolLists, promptDisabled: readonly string[] = []): boolean {
  if (lists.enabled.length && !lists.enabled.some((e) => toolMatches(e, name))) return false;
  if (lists.disabled.some((e) => toolMatches(e, name))) return false;
  return !promptDisabled.includes(name);
}

/** Entries naming no known tool (Part B: unknown names produce a warning). */
export function unknownEntries(lists: ToolLists, known: readonly string[]): string[] {
  const out: string[] = [];
  for (const list of ['enabled', 'disabled'] as const) {
    for (const e of lists[list]) {
      // Wildcards and mcp__ shapes are warned about by config resolution; MCP names are not known here.
      if (e.includes('*') || e.startsWith('mcp__')) continue;
      if (!known.includes(e)) out.push(`config.toml: tools.${list} entry "${e}" names no known tool and never matches`);
    }
  }
  return out;
}
