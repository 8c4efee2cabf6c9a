import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { GLOBAL_STREAM } from '../../journal/keys.ts';
import { Codes } from '../../protocol/codes.ts';
import { ApiError } from '../../protocol/errors.ts';
import type { PluginSummary } from '../../protocol/schemas/plugins.ts';
import type { EventJournal } from '../events/journal.ts';
import type { Clock } from '../lib/clock.ts';
import { writeFileAtomic } from '../lib/fs-atomic.ts';
import type { Ids } from '../lib/ids.ts';
import type { Logger } from '../lib/logger.ts';
import { installedPlugins, MANIFEST, readRecord, pluginDir, pluginsRoot, recordFile, stateDir, type InstalledPlugin, type InstallRecord } from './layout.ts';
import { readContents, readManifest } from './load.ts';
import { copyLocal, displaySource, fetchRepo, fetchZip, MissingPathError, parseSource, SourceError } from './sources.ts';

export interface PluginStoreDeps {
  home: string;
  journal: EventJournal;
  clock: Clock;
  ids: Ids;
  log: Logger;
  /** Plain http to a loopback host for sources and the marketplace (tests; SVC_CODE_PLUGINS_ALLOW_LOOPBACK_HTTP). */
  allowLoopbackHttp?: boolean;
}

const notInstalled = (id: string) => new ApiError(Codes.PLUGIN_NOT_INSTALLED, `plugin not installed: ${id}`, { details: { plugin_id: id } });
const loadFailed = (reason: string) => new ApiError(Codes.VALIDATION, `plugin failed to load: ${reason}`, { details: [{ field: 'source', message: reason }] });

/**
 * Installed plugins (docs/plugins.md): installs are staged under `plugins/.staging-*` and moved in
 * place with a rename once they load, so a failed install leaves nothing behind. Disk is the store:
 * every read lists the folder; a change is on disk before `event.plugin.changed` is journaled.
 */
export class PluginStore {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: PluginStoreDeps) {}

  /** Whether plain http to a loopback host is taken (sources here, the marketplace catalog). */
  get allowsLoopbackHttp(): boolean {
    return this.deps.allowLoopbackHttp ?? false;
  }

  /** Removes what an interrupted install or replace left (staging and trash folders). */
  async open(): Promise<void> {
    const ents = await readdir(pluginsRoot(this.deps.home), { withFileTypes: true }).catch(() => []);
    for (const e of ents) {
      if (e.isDirectory() && (e.name.startsWith('.staging-') || e.name.startsWith('.trash-'))) {
        await rm(path.join(pluginsRoot(this.deps.home), e.name), { recursive: true, force: true });
      }
    }
  }

  /** One change at a time: installs, toggles and removals never interleave. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => undefined);
    return run;
  }

  async list(): Promise<PluginSummary[]> {
    return Promise.all(installedPlugins(this.deps.home).map((p) => this.summary(p)));
  }

  private find(id: string): InstalledPlugin {
    const p = installedPlugins(this.deps.home).find((x) => x.id === id);
    if (!p) throw notInstalled(id);
    return p;
  }

  async summary(p: InstalledPlugin): Promise<PluginSummary> {
    const c = await readContents(p.dir, p.id);
    const r = p.record;
    return {
      id: p.id, displayName: c.manifest?.displayName ?? c.manifest?.name ?? p.id, ...(c.manifest?.version ? { version: c.manifest.version } : {}),
      enabled: r.enabled, state: c.manifest ? 'ok' : 'error',
      skillCount: c.skillCount, mcpServerCount: c.mcpServerCount, enabledMcpServerCount: c.enabledMcpServerCount,
      hookCount: c.hookCount, commandCount: c.commandCount, hasErrors: c.problems.length > 0,
      source: r.source, ...(r.originalSource ? { originalSource: r.originalSource } : {}), ...(r.repo ? { repo: r.repo } : {}),
    };
  }

  /** POST /plugins: fetch into a staging folder, load it, then move it in place (replacing an install of the same id). */
  install(source: string): Promise<PluginSummary> {
    return this.serial(async () => {
      let parsed;
      try {
        parsed = parseSource(source, this.allowsLoopbackHttp);
      } catch (err) {
        throw new ApiError(Codes.VALIDATION, (err as Error).message, { details: [{ field: 'source', message: (err as Error).message }] });
      }
      const root = pluginsRoot(this.deps.home);
      const staging = path.join(root, `.staging-${this.deps.ids.ulid()}`);
      await mkdir(stateDir(this.deps.home), { recursive: true });
      try {
        const fetched = path.join(staging, 'src');
        let repo;
        try {
          if (parsed.kind === 'local-path') await copyLocal(parsed.path, fetched);
          else if (parsed.kind === 'zip-url') await fetchZip(parsed.url, fetched);
          else repo = await fetchRepo(parsed, fetched);
        } catch (err) {
          if (err instanceof MissingPathError) throw new ApiError(Codes.PATH_NOT_FOUND, err.message, { details: { source } });
          if (err instanceof SourceError) throw loadFailed(err.message);
          throw err;
        }
        const dir = await pluginRootIn(fetched);
        const manifest = await readManifest(dir);
        if (typeof manifest === 'string') throw loadFailed(manifest);
        const id = manifest.name;
        const record: InstallRecord = {
          id, enabled: true, source: parsed.kind, originalSource: displaySource(source, parsed), ...(repo ? { repo } : {}),
          installedAt: this.deps.clock.now().toISOString(),
        };
        // The record first (an install without its folder is not listed), then the folder by rename.
        const target = pluginDir(this.deps.home, id);
        const trash = path.join(root, `.trash-${this.deps.ids.ulid()}`);
        const replacing = await stat(target).then(() => true, () => false);
        const previous = readRecord(this.deps.home, id);
        if (replacing) await rename(target, trash);
        try {
          await writeFileAtomic(recordFile(this.deps.home, id), JSON.stringify(record, null, 2));
          await rename(dir, target);
        } catch (err) {
          if (replacing) await rename(trash, target).catch(() => undefined);
          if (previous) await writeFileAtomic(recordFile(this.deps.home, id), JSON.stringify(previous, null, 2)).catch(() => undefined);
          else await rm(recordFile(this.deps.home, id), { force: true });
          throw err;
        }
        if (replacing) await rm(trash, { recursive: true, force: true });
        await this.changed(id, 'installed');
        this.deps.log.info({ plugin: id, source: record.source }, 'plugin installed');
        return this.summary(this.find(id));
      } finally {
        await rm(staging, { recursive: true, force: true });
      }
    });
  }

  setEnabled(id: string, enabled: boolean): Promise<void> {
    return this.serial(async () => {
      const p = this.find(id);
      if (p.record.enabled !== enabled) {
        await mkdir(stateDir(this.deps.home), { recursive: true });
        await writeFileAtomic(recordFile(this.deps.home, id), JSON.stringify({ ...p.record, enabled }, null, 2));
      }
      await this.changed(id, enabled ? 'enabled' : 'disabled');
    });
  }

  remove(id: string): Promise<void> {
    return this.serial(async () => {
      this.find(id);
      const trash = path.join(pluginsRoot(this.deps.home), `.trash-${this.deps.ids.ulid()}`);
      // One rename takes the plugin out of every listing at once; the record and the files go after.
      await rename(pluginDir(this.deps.home, id), trash);
      await rm(recordFile(this.deps.home, id), { force: true });
      await rm(trash, { recursive: true, force: true });
      await this.changed(id, 'removed');
    });
  }

  private async changed(id: string, change: 'installed' | 'enabled' | 'disabled' | 'removed'): Promise<void> {
    await this.deps.journal.append([{ stream: GLOBAL_STREAM, type: 'event.plugin.changed', payload: { plugin_id: id, change } }]);
  }
}

/** The plugin's root in what was fetched: the folder itself, or its one subfolder (archives often wrap one). */
async function pluginRootIn(fetched: string): Promise<string> {
  if (await stat(path.join(fetched, MANIFEST)).then(() => true, () => false)) return fetched;
  const ents = (await readdir(fetched, { withFileTypes: true })).filter((e) => !e.name.startsWith('.') && e.name !== '__MACOSX');
  if (ents.length === 1 && ents[0].isDirectory()) return path.join(fetched, ents[0].name);
  return fetched;
}
