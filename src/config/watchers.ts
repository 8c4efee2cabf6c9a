import path from 'node:path';
import type { JournalEvent } from '../../journal/types.ts';
import type { WorkspaceRegistry } from '../../projections/workspaces/workspace-registry.ts';
import type { Logger } from '../lib/logger.ts';
import type { McpService } from '../mcp/service.ts';
import { PROJECT_LOCAL_FILE, PROJECT_ROOT_FILE, userFile } from '../mcp/layers.ts';
import { localConfigPath } from '../workspaces/local-config.ts';
import type { ConfigService } from './service.ts';
import { FilesWatcher } from './watch.ts';
import type { EventType } from '../../protocol/events/registry.ts';
import { known } from '../../protocol/events/known.ts';

export interface ConfigWatchDeps {
  home: string;
  config: ConfigService;
  workspaces: Pick<WorkspaceRegistry, 'all'>;
  mcp: Pick<McpService, 'catalogChanged' | 'projectLayersChanged' | 'rootsChanged'>;
  log: Logger;
}

/** What a watched file is, and so what its change reloads. */
type Target =
  | { kind: 'config' }
  | { kind: 'user-mcp' }
  | { kind: 'project-mcp'; workspaceId: string }
  | { kind: 'local'; workspaceId: string };

const WORKSPACE_EVENTS = new Set<EventType>(['event.workspace.created', 'event.workspace.deleted', 'workspace.trust_changed']);

/**
 * `[watch] enabled` (Part B "watch"): filesystem watchers that reload config.toml, the MCP config
 * (the user-level mcp.json, and the project layers `.mcp.json` / `.svc-code/mcp.json` of trusted
 * workspaces: live sessions gain, lose or restart servers) and each trusted workspace's local.toml
 * (the MCP servers of its live sessions are told their roots changed). AGENTS.md and skills need
 * no watcher: they are read at each use (a new session's system prompt; every skill listing and
 * Skill call), as local.toml is by the file routes. With the watchers off, config.toml and the
 * running MCP servers change only by the daemon's own writes, or after a restart.
 */
export class ConfigWatchers {
  private readonly targets = new Map<string, Target>();
  private readonly files: FilesWatcher;
  private closed = false;

  constructor(private readonly deps: ConfigWatchDeps) {
    this.files = new FilesWatcher((f) => this.changed(f), deps.log);
    deps.config.on('changed', this.sync);
  }

  /** The files watched now (sorted; none while `[watch] enabled` is false). */
  get watched(): string[] {
    return this.files.watched;
  }

  /** Attaches or detaches the watchers as `[watch] enabled` says, following the trusted workspaces. */
  readonly sync = (): void => {
    this.targets.clear();
    if (this.closed || !this.deps.config.current().watch.enabled) return this.files.stop();
    this.targets.set(this.deps.config.file, { kind: 'config' });
    this.targets.set(userFile(this.deps.home), { kind: 'user-mcp' });
    for (const w of this.deps.workspaces.all()) {
      if (!w.trusted) continue;
      for (const f of [PROJECT_ROOT_FILE, PROJECT_LOCAL_FILE]) this.targets.set(path.join(w.root, f), { kind: 'project-mcp', workspaceId: w.id });
      this.targets.set(localConfigPath(w.root), { kind: 'local', workspaceId: w.id });
    }
    this.files.set([...this.targets.keys()]);
  };

  /** Subscriber of committed events: a workspace registered, removed, trusted or untrusted changes what is watched. */
  readonly onCommitted = (events: JournalEvent[]): void => {
    if (events.some((e) => WORKSPACE_EVENTS.has(known(e).type))) this.sync();
  };

  private changed(file: string): void {
    const t = this.targets.get(file);
    if (!t) return;
    const failed = (err: unknown) => this.deps.log.error({ err, file }, 'reloading a watched config file failed');
    if (t.kind === 'config') void this.deps.config.reload().catch(failed);
    else if (t.kind === 'user-mcp') void this.deps.mcp.catalogChanged().catch(failed);
    else if (t.kind === 'project-mcp') void this.deps.mcp.projectLayersChanged(t.workspaceId).catch(failed);
    else void this.deps.mcp.rootsChanged(t.workspaceId).catch(failed);
  }

  close(): void {
    this.closed = true;
    this.deps.config.off('changed', this.sync);
    this.files.stop();
  }
}
