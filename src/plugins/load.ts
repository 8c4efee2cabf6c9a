import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { readLayerFile } from '../mcp/layers.ts';
import { scanRoot } from '../skills/scan.ts';
import { parseHooks } from '../hooks/types.ts';
import { readCommands } from './commands.ts';
import { MANIFEST } from './layout.ts';

/** A plugin id (and manifest `name`): what a folder name and a URL segment can both carry. */
export const PLUGIN_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/i;

export interface Manifest {
  name: string;
  displayName?: string;
  version?: string;
  description?: string;
}

/** What a plugin folder holds, as the summary counts it. */
export interface PluginContents {
  manifest?: Manifest;
  skillCount: number;
  mcpServerCount: number;
  enabledMcpServerCount: number;
  hookCount: number;
  commandCount: number;
  /** Parts that did not load (a bad server entry, a bad hook, an unreadable manifest). */
  problems: string[];
}

const str = (x: unknown) => (typeof x === 'string' && x ? x : undefined);

/** Reads and checks the manifest; a reason string when the plugin cannot load at all. */
export async function readManifest(dir: string): Promise<Manifest | string> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path.join(dir, MANIFEST), 'utf8'));
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? `no ${MANIFEST} at the plugin's root` : `${MANIFEST}: ${(err as Error).message}`;
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return `${MANIFEST} is not a JSON object`;
  const m = raw as Record<string, unknown>;
  const name = str(m.name);
  if (!name || !PLUGIN_ID.test(name)) return `${MANIFEST}: name must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit`;
  return { name, ...(str(m.displayName) ? { displayName: str(m.displayName) } : {}), ...(str(m.version) ? { version: str(m.version) } : {}), ...(str(m.description) ? { description: str(m.description) } : {}) };
}

/** Hooks of a plugin folder (`hooks.json`: `{"hooks": [...]}`). */
export async function readPluginHooks(dir: string, id: string) {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path.join(dir, 'hooks.json'), 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { hooks: [], problems: [] };
    return { hooks: [], problems: [`plugin ${id}: hooks.json: ${(err as Error).message}`] };
  }
  return parseHooks((raw as { hooks?: unknown } | null)?.hooks, `plugin:${id}`, dir);
}

/** Counts what a plugin folder contributes. */
export async function readContents(dir: string, id: string): Promise<PluginContents> {
  const manifest = await readManifest(dir);
  const problems: string[] = typeof manifest === 'string' ? [manifest] : [];
  const skills = await scanRoot(path.join(dir, 'skills'), 'plugin');
  const mcp = await readLayerFile(path.join(dir, 'mcp.json'), 'plugin', { id, name: typeof manifest === 'string' ? id : manifest.name });
  problems.push(...mcp.problems);
  const hooks = await readPluginHooks(dir, id);
  problems.push(...hooks.problems);
  const { commands, problems: commandProblems } = await readCommands(dir, id);
  problems.push(...commandProblems);
  return {
    ...(typeof manifest === 'string' ? {} : { manifest }),
    skillCount: skills.length,
    mcpServerCount: mcp.servers.length,
    enabledMcpServerCount: mcp.servers.filter((s) => s.config.enabled !== false).length,
    hookCount: hooks.hooks.length,
    commandCount: commands.length,
    problems,
  };
}
