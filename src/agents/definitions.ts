import path from 'node:path';
import { parse } from 'yaml';
import { SUBAGENT_TYPES } from './caller.ts';

/** Where a definition came from, lowest precedence first (docs/agents.md). */
export type AgentSource = 'builtin' | 'plugin' | 'extra' | 'user' | 'project';

/** A custom agent (profile): what a prompt's `profile` and the Agent tool's `subagent_type` name. */
export interface AgentDefinition {
  name: string;
  /** One line for the model and for 40001's list (may be empty). */
  description: string;
  source: AgentSource;
  /** The definition file (absent for built-ins). */
  path?: string;
  /** The file's body: instructions appended to the base system prompt. */
  prompt?: string;
  /** Tool names (MCP globs `mcp__server__*` allowed); absent = every tool the agent would have. */
  tools?: readonly string[];
  /** A `[models]` alias; absent (or `inherit`) = the caller's model. */
  model?: string;
}

/** The name that means "no profile" (the plain main agent): never a definition. */
export const DEFAULT_PROFILE = 'default';

/** Bytes read of one definition file; a larger file is refused with a warning. */
export const MAX_FILE_BYTES = 64 * 1024;

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const FRONTMATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** The built-in subagent types as definitions (lowest precedence: a file of the same name replaces one). */
export function builtinDefinitions(): AgentDefinition[] {
  return Object.entries(SUBAGENT_TYPES).map(([name, t]) => ({
    name, description: t.summary, source: 'builtin' as const, ...(t.only ? { tools: t.only } : {}),
  }));
}

/** `tools:` as Claude Code writes it: a YAML list or a comma-separated string; `*` = every tool. */
function toolList(raw: unknown): string[] | undefined | { error: string } {
  if (raw === undefined || raw === null) return undefined;
  const items = typeof raw === 'string' ? raw.split(',') : Array.isArray(raw) ? raw : undefined;
  if (!items || items.some((x) => typeof x !== 'string')) return { error: 'tools must be a list of tool names or a comma-separated string' };
  const names = (items as string[]).map((x) => x.trim()).filter(Boolean);
  if (names.includes('*')) return undefined;
  return [...new Set(names)];
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/**
 * One `<name>.md` agent file: optional YAML front matter (`name`, `description`, `tools`, `model`), then
 * the body (the agent's instructions). A file that cannot define an agent gives the warning to log.
 */
export function parseAgentFile(file: string, text: string, source: AgentSource): AgentDefinition | { warning: string } {
  const bad = (why: string) => ({ warning: `agent definition ${file} ignored: ${why}` });
  const m = FRONTMATTER.exec(text);
  let fm: Record<string, unknown> = {};
  if (m) {
    let doc: unknown;
    try {
      doc = parse(m[1]!);
    } catch (err) {
      return bad(`malformed front matter (${(err as Error).message.split('\n')[0]})`);
    }
    if (doc !== null && doc !== undefined) {
      if (typeof doc !== 'object' || Array.isArray(doc)) return bad('front matter is not a mapping');
      fm = doc as Record<string, unknown>;
    }
  }
  const name = fm.name === undefined ? path.basename(file, '.md') : str(fm.name);
  if (!name || !NAME.test(name)) return bad(`name must be 1-64 letters, digits, '-', '_' or '.' (got ${JSON.stringify(fm.name ?? name)})`);
  if (name === DEFAULT_PROFILE) return bad(`"${DEFAULT_PROFILE}" is reserved for the plain main agent`);
  if (fm.description !== undefined && typeof fm.description !== 'string') return bad('description must be a string');
  if (fm.model !== undefined && typeof fm.model !== 'string') return bad('model must be a string (a [models] alias)');
  const tools = toolList(fm.tools);
  if (tools && 'error' in tools) return bad(tools.error);
  const body = (m ? text.slice(m[0].length) : text).trim();
  const model = str(fm.model);
  return {
    name, description: str(fm.description) ?? '', source, path: file, ...(body ? { prompt: body } : {}),
    ...(tools ? { tools } : {}), ...(model && model !== 'inherit' ? { model } : {}),
  };
}

/** The first line of a description, cut to `max` characters (what listings show). */
export function oneLine(text: string, max: number): string {
  const line = text.split(/\r?\n/, 1)[0]!.trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
