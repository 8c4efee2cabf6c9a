import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as v from 'valibot';
import { enabledPlugins } from '../plugins/layout.ts';
import { McpServerConfig, McpServerName, type McpLocator } from '../../protocol/schemas/mcp.ts';

/**
 * The mcp.json layers (docs/mcp.md): the user-level file in the data directory (the only mutable
 * one), plugin manifests under `<home>/plugins/<id>/`, and, for a trusted workspace, the
 * project-root `.mcp.json` and the project-local `.svc-code/mcp.json`. Every file has one shape:
 * `{"mcpServers": {"<name>": {"transport": "stdio" | "http" | "sse", ...}}}`.
 */
export type Layer = 'user' | 'project-root' | 'project-local' | 'plugin';

/** One declared server, as its layer declares it. */
export interface DeclaredServer {
  name: string;
  config: McpServerConfig;
  layer: Layer;
  /** The file (or the plugin id for plugin entries). */
  origin: string;
  plugin?: { id: string; name: string };
}

/** What one file holds: its servers, the entries it could not read, and its other top-level keys. */
export interface LayerFile {
  servers: DeclaredServer[];
  problems: string[];
  /** The parsed document (writes keep keys they do not know). */
  raw: Record<string, unknown>;
  /** The file exists but cannot be parsed as a JSON object. */
  corrupt?: string;
}

export const USER_FILE = 'mcp.json';
export const PROJECT_ROOT_FILE = '.mcp.json';
export const PROJECT_LOCAL_FILE = path.join('.svc-code', 'mcp.json');
/** Largest mcp.json read or written. */
export const MCP_FILE_MAX_BYTES = 1024 * 1024;

export const userFile = (home: string) => path.join(home, USER_FILE);

/** Reads one layer file; a missing file is empty, a corrupt one is reported and yields nothing. */
export async function readLayerFile(file: string, layer: Layer, plugin?: { id: string; name: string }): Promise<LayerFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { servers: [], problems: [], raw: {} };
    return { servers: [], problems: [`${file}: ${(err as Error).message}`], raw: {}, corrupt: (err as Error).message };
  }
  if (text.length > MCP_FILE_MAX_BYTES) return { servers: [], problems: [`${file}: larger than ${MCP_FILE_MAX_BYTES} bytes`], raw: {}, corrupt: 'too large' };
  let raw: unknown;
  try {
    raw = text.trim() ? JSON.parse(text) : {};
  } catch (err) {
    return { servers: [], problems: [`${file}: not JSON: ${(err as Error).message}`], raw: {}, corrupt: (err as Error).message };
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { servers: [], problems: [`${file}: not a JSON object`], raw: {}, corrupt: 'not a JSON object' };
  const doc = raw as Record<string, unknown>;
  const table = doc.mcpServers;
  if (table !== undefined && (!table || typeof table !== 'object' || Array.isArray(table))) {
    return { servers: [], problems: [`${file}: mcpServers is not an object`], raw: doc, corrupt: 'mcpServers is not an object' };
  }
  const servers: DeclaredServer[] = [];
  const problems: string[] = [];
  for (const [name, value] of Object.entries((table ?? {}) as Record<string, unknown>)) {
    const n = v.safeParse(McpServerName, name);
    const c = v.safeParse(McpServerConfig, value);
    if (!n.success || !c.success) {
      const issues = [...(n.issues ?? []), ...(c.issues ?? [])].map((i) => `${v.getDotPath(i) ?? name}: ${i.message}`).join('; ');
      problems.push(`${file}: server "${name}" ignored: ${issues}`);
      continue;
    }
    servers.push({ name, config: c.output, layer, origin: layer === 'plugin' ? plugin!.id : file, ...(plugin ? { plugin } : {}) });
  }
  return { servers, problems, raw: doc };
}

/** Enabled plugins' servers: `<home>/plugins/<id>/mcp.json` of each enabled plugin of the store (docs/plugins.md). */
export async function readPluginLayers(home: string): Promise<LayerFile[]> {
  const out: LayerFile[] = [];
  for (const p of enabledPlugins(home)) out.push(await readLayerFile(path.join(p.dir, 'mcp.json'), 'plugin', { id: p.id, name: p.name }));
  return out;
}

/** `global:<name>` or `plugin:<pluginId>:<serverName>`, each part URL-encoded (Part B "MCP inspection"). */
export function serverIdOf(locator: McpLocator): string {
  return locator.source === 'global'
    ? `global:${encodeURIComponent(locator.name)}`
    : `plugin:${encodeURIComponent(locator.pluginId)}:${encodeURIComponent(locator.serverName)}`;
}

export function locatorOf(s: DeclaredServer): McpLocator {
  return s.layer === 'plugin' ? { source: 'plugin', pluginId: s.plugin!.id, serverName: s.name } : { source: 'global', name: s.name };
}
