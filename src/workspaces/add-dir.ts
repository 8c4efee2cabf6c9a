import { realpath } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { WorkspaceRegistry } from '../../projections/workspaces/workspace-registry.ts';
import type { Logger } from '../lib/logger.ts';
import { validationError } from '../../protocol/errors.ts';
import type { WorkspaceDirs } from './extra-dirs.ts';
import { localConfigPath, readLocalConfig, storedDirs, withDirs, writeLocalConfig } from './local-config.ts';
import { existingDirectory, findWorkspace } from './service.ts';

export interface AddDirInput {
  path: string;
  persist?: boolean;
}

export interface AddDirResult {
  project_root: string;
  config_path: string;
  /** Persisted (local.toml, file order) then in-memory entries, without duplicates, regardless of trust. */
  additional_dirs: string[];
  /** Whether the directory is recorded in local.toml after this call. */
  persisted: boolean;
}

/** `~` and `~/x` expand to the user's home; other relative paths resolve against the workspace root. */
export function resolveAddDirPath(root: string, input: string): string {
  if (input === '~') return path.resolve(os.homedir());
  if (input.startsWith('~/')) return path.resolve(os.homedir(), input.slice(2));
  return path.resolve(root, input);
}

/** Why `abs` may not be an additional directory (home or filesystem root), if it may not. */
function forbidden(abs: string, home: string): string | undefined {
  if (abs === path.parse(abs).root) return 'must not resolve to the filesystem root';
  if (abs === home) return 'must not resolve to the home directory';
  return undefined;
}

async function real(p: string): Promise<string> {
  try {
    return await realpath(p);
  } catch {
    return p;
  }
}

/** Rejects (40001) home and `/`, both as written and after resolving symlinks. */
async function ensureAllowed(abs: string, field: string): Promise<void> {
  const home = path.resolve(os.homedir());
  const why = forbidden(abs, home) ?? forbidden(await real(abs), await real(home));
  if (why) throw validationError([{ field, message: `${why} (${abs})` }]);
}

const union = (...lists: string[][]) => [...new Set(lists.flat())];

/** The registry and the in-memory add-dir sets a workspace's extra directories come from. */
export interface WorkspaceDirsDeps {
  workspaces: WorkspaceRegistry;
  workspaceDirs: WorkspaceDirs;
  log: Logger;
}

/** POST /api/v1/workspaces/{id}/add-dir. */
export async function addDir(deps: Omit<WorkspaceDirsDeps, 'log'>, workspaceId: string, input: AddDirInput): Promise<AddDirResult> {
  const ws = findWorkspace(deps, workspaceId);
  const abs = resolveAddDirPath(ws.root, input.path);
  await ensureAllowed(abs, 'path');
  const dir = await existingDirectory(abs, 'path');
  // Never create `.svc-code/` inside a root that vanished from disk.
  await existingDirectory(ws.root, 'workspace_id');
  const configPath = localConfigPath(ws.root);
  const persist = input.persist ?? true;
  return deps.workspaceDirs.serial(configPath, async () => {
    findWorkspace(deps, ws.id); // unregistered while queued: 40410
    const doc = await readLocalConfig(configPath);
    const stored = storedDirs(doc, configPath);
    if (persist && !stored.includes(dir)) {
      stored.push(dir);
      await writeLocalConfig(configPath, withDirs(doc, stored));
    }
    if (!persist) deps.workspaceDirs.add(ws.id, dir);
    return {
      project_root: ws.root,
      config_path: configPath,
      additional_dirs: union(stored, deps.workspaceDirs.inMemory(ws.id)),
      persisted: stored.includes(dir),
    };
  });
}

/**
 * The directories sessions of a workspace may use besides its root (for file
 * system confinement). local.toml entries count only while the workspace is
 * trusted (Part B "Gated by workspace trust"), and only absolute entries that
 * are neither home nor `/`; in-memory entries were added through this server's
 * API and always count. A corrupted local.toml contributes nothing (logged).
 */
export async function additionalDirs(deps: WorkspaceDirsDeps, workspaceId: string): Promise<string[]> {
  const ws = deps.workspaces.get(workspaceId);
  if (!ws) return [];
  const memory = deps.workspaceDirs.inMemory(ws.id);
  if (!ws.trusted) return memory;
  const file = localConfigPath(ws.root);
  let stored: string[];
  try {
    stored = storedDirs(await readLocalConfig(file), file);
  } catch (err) {
    deps.log.warn({ workspace_id: ws.id, config_path: file, err: (err as Error).message }, 'ignoring unreadable project local config');
    return memory;
  }
  const home = path.resolve(os.homedir());
  const usable = stored.filter((d) => path.isAbsolute(d) && !forbidden(path.resolve(d), home)).map((d) => path.resolve(d));
  return union(usable, memory);
}
