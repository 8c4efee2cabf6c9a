import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../lib/logger.ts';
import type { ConfigService } from '../config/service.ts';
import type { ResolvedConfig } from '../config/resolve.ts';
import { resolveAlias } from '../providers/models/items.ts';
import { enabledPlugins } from '../plugins/layout.ts';
import type { WorkspaceRegistry } from '../../projections/workspaces/workspace-registry.ts';
import { builtinDefinitions, MAX_FILE_BYTES, parseAgentFile, type AgentDefinition, type AgentSource } from './definitions.ts';

/** Definition files read from one directory; the rest are skipped with a warning. */
export const MAX_FILES_PER_DIR = 100;

/** The project's agent folder under a workspace root. */
export const PROJECT_AGENTS_DIR = path.join('.svc-code', 'agents');

/** What the catalog reads: the data directory, the config (extra_agent_dirs, models), workspace roots. */
export interface AgentCatalogDeps {
  home: string;
  config: ConfigService;
  workspaces: Pick<WorkspaceRegistry, 'get'>;
  log: Logger;
  /** The built-in tool names: a `tools` entry naming none of them (and no MCP pattern) gets a warning. */
  knownTools?: readonly string[];
}

/** Whose agents: a session's workspace (its root holds `.svc-code/agents/`), its cwd when the workspace is gone. */
export interface AgentScope {
  workspace_id: string;
  cwd: string;
}

interface FileEntry { mtimeMs: number; size: number; result: AgentDefinition | { warning: string } }
interface DirEntry { mtimeMs: number; files: string[] }

/** `~/x` is the OS home; a relative entry resolves against the data directory (as extra_skill_dirs). */
function expand(dir: string, home: string): string {
  if (dir === '~' || dir.startsWith('~/')) return path.join(os.homedir(), dir.slice(1));
  return path.resolve(home, dir);
}

function statOf(p: string) {
  try {
    return statSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * Custom agent definitions (docs/agents.md): built-ins, enabled plugins' `agents/`, extra_agent_dirs, `<home>/agents/`,
 * the workspace's `.svc-code/agents/`; a later source wins on a name. Read synchronously (the Agent tool's description
 * is built per model request) and cached: a folder is listed again when its mtime moves, a file read again when its
 * mtime or size does, so a warm lookup costs one stat per folder and file.
 */
export class AgentCatalog {
  private readonly dirs = new Map<string, DirEntry>();
  private readonly files = new Map<string, FileEntry>();
  private readonly warnedModels = new Set<string>();

  constructor(private readonly deps: AgentCatalogDeps) {}

  /** The folders searched, lowest precedence first. */
  roots(scope: AgentScope): Array<{ dir: string; source: AgentSource }> {
    const { home } = this.deps;
    const root = this.deps.workspaces.get(scope.workspace_id)?.root ?? scope.cwd;
    return [
      ...enabledPlugins(home).map((p) => ({ dir: path.join(p.dir, 'agents'), source: 'plugin' as const })),
      ...this.deps.config.current().extra_agent_dirs.map((d) => ({ dir: expand(d, home), source: 'extra' as const })),
      { dir: path.join(home, 'agents'), source: 'user' },
      { dir: path.join(root, PROJECT_AGENTS_DIR), source: 'project' },
    ];
  }

  /** Every definition visible to the scope, one per name (the highest-precedence source's), sorted by name. */
  list(scope: AgentScope): AgentDefinition[] {
    const byName = new Map<string, AgentDefinition>();
    for (const d of builtinDefinitions()) byName.set(d.name, d);
    for (const { dir, source } of this.roots(scope)) {
      for (const d of this.readDir(dir, source)) byName.set(d.name, d);
    }
    return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  find(scope: AgentScope, name: string): AgentDefinition | undefined {
    return this.list(scope).find((d) => d.name === name);
  }

  /**
   * The definition's model when it names a configured `[models]` alias; otherwise undefined (the caller's model
   * is used) and a warning is logged once per file and alias.
   */
  modelOf(def: AgentDefinition, config: ResolvedConfig): string | undefined {
    if (!def.model) return undefined;
    if (resolveAlias(config, def.model)) return def.model;
    const key = `${def.path}\0${def.model}`;
    if (!this.warnedModels.has(key)) {
      this.warnedModels.add(key);
      this.deps.log.warn({ path: def.path, model: def.model }, `agent ${def.name}: model "${def.model}" is not a configured [models] alias; the agent runs on its caller's model`);
    }
    return undefined;
  }

  private readDir(dir: string, source: AgentSource): AgentDefinition[] {
    const st = statOf(dir);
    if (!st?.isDirectory()) {
      this.dirs.delete(dir);
      return [];
    }
    let entry = this.dirs.get(dir);
    if (!entry || entry.mtimeMs !== st.mtimeMs) {
      entry = { mtimeMs: st.mtimeMs, files: this.listFiles(dir) };
      this.dirs.set(dir, entry);
    }
    const out: AgentDefinition[] = [];
    for (const file of entry.files) {
      const result = this.readFile(file, source);
      if (result && !('warning' in result)) out.push(result);
    }
    return out;
  }

  private listFiles(dir: string): string[] {
    let names: string[];
    try {
      names = readdirSync(dir, { withFileTypes: true }).filter((e) => (e.isFile() || e.isSymbolicLink()) && e.name.endsWith('.md') && !e.name.startsWith('.'))
        .map((e) => e.name).sort();
    } catch (err) {
      this.deps.log.warn({ path: dir, err: (err as Error).message }, 'agent definitions folder unreadable');
      return [];
    }
    if (names.length > MAX_FILES_PER_DIR) {
      this.deps.log.warn({ path: dir, files: names.length }, `agent definitions: only the first ${MAX_FILES_PER_DIR} files (by name) of ${dir} are read`);
      names = names.slice(0, MAX_FILES_PER_DIR);
    }
    return names.map((n) => path.join(dir, n));
  }

  /** One file, parsed again only when it changed; a new warning is logged when it is found. */
  private readFile(file: string, source: AgentSource): FileEntry['result'] | undefined {
    const st = statOf(file);
    if (!st?.isFile()) {
      this.files.delete(file);
      return undefined;
    }
    const hit = this.files.get(file);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size && (!('source' in hit.result) || hit.result.source === source)) return hit.result;
    const result = st.size > MAX_FILE_BYTES
      ? { warning: `agent definition ${file} ignored: ${st.size} bytes, over the ${MAX_FILE_BYTES}-byte limit` }
      : this.parse(file, source);
    if ('warning' in result) this.deps.log.warn({ path: file }, result.warning);
    else this.warnUnknownTools(result);
    this.files.set(file, { mtimeMs: st.mtimeMs, size: st.size, result });
    return result;
  }

  private warnUnknownTools(def: AgentDefinition): void {
    const known = this.deps.knownTools;
    const unknown = known ? (def.tools ?? []).filter((n) => !n.startsWith('mcp__') && !known.includes(n)) : [];
    if (unknown.length) this.deps.log.warn({ path: def.path, tools: unknown }, `agent ${def.name}: tools ${unknown.join(', ')} name no known tool and never match`);
  }

  private parse(file: string, source: AgentSource): FileEntry['result'] {
    let text: string;
    try {
      const fd = openSync(file, 'r');
      try {
        const buf = Buffer.allocUnsafe(MAX_FILE_BYTES);
        text = buf.toString('utf8', 0, readSync(fd, buf, 0, MAX_FILE_BYTES, 0));
      } finally {
        closeSync(fd);
      }
    } catch (err) {
      return { warning: `agent definition ${file} ignored: unreadable (${(err as Error).message})` };
    }
    return parseAgentFile(file, text, source);
  }
}
