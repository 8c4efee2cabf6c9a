import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Where installed plugins live (docs/plugins.md): each plugin's files are copied to
 * `<home>/plugins/<id>/` (so its `mcp.json`, `skills/`, `hooks.json`, `commands/` sit there), and
 * its install record (source, enabled) is `<home>/plugins/.state/<id>.json`. Dot-folders under
 * `plugins/` (the records, staging installs) are never plugins. A plugin folder without a record
 * (placed by hand) counts as installed and enabled, from a local path.
 */
export const pluginsRoot = (home: string) => path.join(home, 'plugins');
export const stateDir = (home: string) => path.join(pluginsRoot(home), '.state');
export const recordFile = (home: string, id: string) => path.join(stateDir(home), `${id}.json`);
export const pluginDir = (home: string, id: string) => path.join(pluginsRoot(home), id);

/** The manifest file at a plugin's root. */
export const MANIFEST = 'plugin.json';

export type PluginSourceKind = 'local-path' | 'zip-url' | 'repo';
export type RefKind = 'branch' | 'tag' | 'sha';

export interface RepoInfo {
  owner: string;
  repo: string;
  ref: { kind: RefKind; value: string };
  installedSha?: string;
}

/** What an install remembers: written before the plugin folder is moved in place. */
export interface InstallRecord {
  id: string;
  enabled: boolean;
  source: PluginSourceKind;
  /** What POST /plugins was given (a URL's userinfo and query are never kept). */
  originalSource?: string;
  repo?: RepoInfo;
  installedAt?: string;
}

export interface InstalledPlugin {
  id: string;
  dir: string;
  /** The manifest's `name`, else the id. */
  name: string;
  record: InstallRecord;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

const isObj = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);

/** A record as stored, or undefined when absent or unreadable. */
export function readRecord(home: string, id: string): InstallRecord | undefined {
  const r = readJson(recordFile(home, id));
  if (!isObj(r) || typeof r.enabled !== 'boolean') return undefined;
  return { ...(r as unknown as InstallRecord), id };
}

/** Installed plugins, sorted by id; read from disk (the store writes disk first). */
export function installedPlugins(home: string): InstalledPlugin[] {
  let ids: string[];
  try {
    // Read per model request: no plugins folder (the usual case) costs a stat, not a thrown ENOENT.
    if (!statSync(pluginsRoot(home), { throwIfNoEntry: false })?.isDirectory()) return [];
    ids = readdirSync(pluginsRoot(home), { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name).sort();
  } catch {
    return [];
  }
  return ids.map((id) => {
    const dir = pluginDir(home, id);
    const manifest = readJson(path.join(dir, MANIFEST));
    const name = isObj(manifest) && typeof manifest.name === 'string' && manifest.name ? manifest.name : id;
    // A hand-placed plugin: enabled unless its manifest says `"enabled": false` (the provisional MCP layer's rule).
    const record = readRecord(home, id) ?? { id, enabled: !(isObj(manifest) && manifest.enabled === false), source: 'local-path' as const };
    return { id, dir, name, record };
  });
}

/** Enabled plugins only: a disabled plugin contributes nothing (skills, MCP servers, hooks, commands). */
export function enabledPlugins(home: string): InstalledPlugin[] {
  return installedPlugins(home).filter((p) => p.record.enabled);
}
