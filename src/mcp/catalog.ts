import path from 'node:path';
import type { ManagedMcpServer, McpLocator, McpServerConfig } from '../../protocol/schemas/mcp.ts';
import { locatorOf, PROJECT_LOCAL_FILE, PROJECT_ROOT_FILE, readLayerFile, readPluginLayers, serverIdOf, userFile, type DeclaredServer } from './layers.ts';

/** One entry of the catalog with what the layers decide about it. */
export interface CatalogEntry extends DeclaredServer {
  locator: McpLocator;
  serverId: string;
  mutable: boolean;
  /** A plugin entry hidden by a same-named file entry. */
  shadowed: boolean;
}

/** A runtime name two or more enabled plugin entries declare (none of them runs). */
export interface NameConflict {
  name: string;
  entries: CatalogEntry[];
  message: string;
}

/**
 * Every server the layers declare for one view (with or without a trusted project root), and what
 * runs: per runtime name the file entry of the highest layer (project-local > project-root > user),
 * else the one enabled plugin entry of that name.
 */
export class Catalog {
  constructor(
    readonly entries: CatalogEntry[],
    readonly problems: string[],
    /** The trusted project root whose layers joined, if any. */
    readonly projectRoot?: string,
  ) {}

  /** The file entry of `name` that wins (project layers over the user file). */
  fileEntry(name: string): CatalogEntry | undefined {
    const rank = { 'project-local': 0, 'project-root': 1, user: 2, plugin: 3 } as const;
    return this.entries.filter((e) => e.name === name && e.layer !== 'plugin').sort((a, b) => rank[a.layer] - rank[b.layer])[0];
  }

  /** The entry a locator names (`global:<name>` is the winning file entry). */
  find(locator: McpLocator): CatalogEntry | undefined {
    if (locator.source === 'global') return this.fileEntry(locator.name);
    return this.entries.find((e) => e.layer === 'plugin' && e.plugin!.id === locator.pluginId && e.name === locator.serverName);
  }

  /** What a listing shows: the winning file entry per name, then every plugin entry. */
  listed(): CatalogEntry[] {
    const names = [...new Set(this.entries.filter((e) => e.layer !== 'plugin').map((e) => e.name))].sort();
    const files = names.map((n) => this.fileEntry(n)!);
    const plugins = this.entries.filter((e) => e.layer === 'plugin');
    return [...files, ...plugins];
  }

  /** Runtime names two or more enabled, unshadowed plugin entries share. */
  conflicts(): NameConflict[] {
    const byName = new Map<string, CatalogEntry[]>();
    for (const e of this.entries) {
      if (e.layer !== 'plugin' || e.shadowed || e.config.enabled === false) continue;
      byName.set(e.name, [...(byName.get(e.name) ?? []), e]);
    }
    return [...byName].filter(([, es]) => es.length > 1).map(([name, es]) => ({
      name, entries: es, message: `runtime name "${name}" is shared by ${es.length} enabled servers (${es.map((e) => e.serverId).join(', ')}); none of them runs`,
    }));
  }

  conflictOf(name: string): NameConflict | undefined {
    return this.conflicts().find((c) => c.name === name);
  }

  /** The entry that runs under `name`, or why none does. */
  runtimeEntry(name: string): CatalogEntry | NameConflict | undefined {
    const file = this.fileEntry(name);
    if (file) return file;
    const conflict = this.conflictOf(name);
    if (conflict) return conflict;
    return this.entries.find((e) => e.layer === 'plugin' && e.name === name && e.config.enabled !== false);
  }

  /** The enabled servers a session runs, by runtime name, and the names that cannot run. */
  runtimeSet(): { run: CatalogEntry[]; conflicts: NameConflict[] } {
    const names = [...new Set(this.entries.map((e) => e.name))].sort();
    const run: CatalogEntry[] = [];
    const conflicts: NameConflict[] = [];
    for (const n of names) {
      const e = this.runtimeEntry(n);
      if (!e) continue;
      if ('message' in e) conflicts.push(e);
      else if (e.config.enabled !== false) run.push(e);
    }
    return { run, conflicts };
  }
}

/** Reads the layers: the user file and plugins always, the project layers only for a trusted root. */
export async function loadCatalog(home: string, trustedRoot?: string): Promise<Catalog> {
  const files = [await readLayerFile(userFile(home), 'user'), ...(await readPluginLayers(home))];
  if (trustedRoot) {
    files.push(await readLayerFile(path.join(trustedRoot, PROJECT_ROOT_FILE), 'project-root'));
    files.push(await readLayerFile(path.join(trustedRoot, PROJECT_LOCAL_FILE), 'project-local'));
  }
  const declared = files.flatMap((f) => f.servers);
  const fileNames = new Set(declared.filter((d) => d.layer !== 'plugin').map((d) => d.name));
  const entries = declared.map((d): CatalogEntry => {
    const locator = locatorOf(d);
    return { ...d, locator, serverId: serverIdOf(locator), mutable: d.layer === 'user', shadowed: d.layer === 'plugin' && fileNames.has(d.name) };
  });
  return new Catalog(entries, files.flatMap((f) => f.problems), trustedRoot);
}

const sorted = (o: Record<string, unknown> | undefined) => Object.keys(o ?? {}).sort();

/**
 * A config as a read-only view shows it: `env` and `headers` become their sorted key lists, a
 * static token or client secret is only said to exist. No secret value is ever kept.
 */
export function redactConfig(c: McpServerConfig): Record<string, unknown> {
  if (c.transport === 'stdio') {
    const { env, ...rest } = c;
    return { ...rest, envKeys: sorted(env) };
  }
  const { headers, bearerToken, oauth, ...rest } = c;
  return {
    ...rest, headerKeys: sorted(headers), ...(bearerToken !== undefined ? { hasBearerToken: true } : {}),
    ...(oauth ? { oauth: { ...(oauth.scope !== undefined ? { scope: oauth.scope } : {}), ...(oauth.clientId !== undefined ? { clientId: oauth.clientId } : {}), ...(oauth.clientSecret !== undefined ? { hasClientSecret: true } : {}) } } : {}),
  };
}

/** The Part B "Managed MCP server (v2)" object: mutable entries in full, others redacted. */
export function managedView(e: CatalogEntry): ManagedMcpServer {
  return {
    name: e.name, config: e.mutable ? { ...e.config } : redactConfig(e.config), source: e.layer === 'plugin' ? 'plugin' : 'global', origin: e.origin,
    mutable: e.mutable, ...(e.plugin ? { plugin: { ...e.plugin } } : {}), layer: e.layer, ...(e.layer === 'plugin' ? { shadowed: e.shadowed } : {}),
  };
}

/** The URL of a remote server in one spelling (grants are keyed by it). */
export function canonicalUrl(c: McpServerConfig): string | undefined {
  if (c.transport === 'stdio') return undefined;
  const u = new URL(c.url);
  u.hash = '';
  return u.href;
}
