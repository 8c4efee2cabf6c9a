import { stat } from 'node:fs/promises';
import path from 'node:path';
import { GLOBAL_STREAM } from '../../journal/keys.ts';
import type { SessionIndex } from '../../projections/session-index/session-index.ts';
import type { WorkspaceRecord, WorkspaceRegistry } from '../../projections/workspaces/workspace-registry.ts';
import type { Clock } from '../lib/clock.ts';
import type { WorkspaceState } from '../../protocol/events/workspace.ts';
import { Codes } from '../../protocol/codes.ts';
import { ApiError, notFound } from '../../protocol/errors.ts';
import { workspaceIdFor } from './ids.ts';
import type { DurableType, NewStreamEvent } from '../../protocol/events/registry.ts';

/** The wire workspace object. */
export function toWorkspaceObject(deps: { sessions: SessionIndex }, w: WorkspaceRecord, extraSessions = 0) {
  return {
    id: w.id,
    root: w.root,
    name: w.name,
    created_at: w.created_at,
    last_opened_at: w.last_opened_at,
    session_count: deps.sessions.countsFor(w.id).all + extraSessions,
  };
}

/** Resolves a directory path; 40409 when it does not exist or is not a directory. */
export async function existingDirectory(dir: string, field: string): Promise<string> {
  const abs = path.resolve(dir);
  try {
    if ((await stat(abs)).isDirectory()) return abs;
  } catch {
    /* reported below */
  }
  throw new ApiError(Codes.PATH_NOT_FOUND, `directory not found or not a directory: ${dir}`, { details: { field, path: dir } });
}

export function findWorkspace(deps: { workspaces: WorkspaceRegistry }, id: string): WorkspaceRecord {
  const w = deps.workspaces.get(id);
  if (!w) throw notFound(Codes.WORKSPACE_NOT_FOUND, 'workspace', id);
  return w;
}

/** A workspace id, or an alias of one (its absolute root path). */
export function resolveWorkspaceAlias(deps: { workspaces: WorkspaceRegistry }, idOrRoot: string): WorkspaceRecord {
  const direct = deps.workspaces.get(idOrRoot);
  if (direct) return direct;
  if (path.isAbsolute(idOrRoot)) {
    const byRoot = deps.workspaces.get(workspaceIdFor(path.resolve(idOrRoot)));
    if (byRoot) return byRoot;
  }
  throw notFound(Codes.WORKSPACE_NOT_FOUND, 'workspace', idOrRoot);
}

/**
 * The events that register `root` (created) or refresh it (updated, with
 * `last_opened_at` set to now when `reopen`). `extraSessions` counts sessions
 * created in the same batch.
 */
export function workspaceUpsertEvents(
  deps: { sessions: SessionIndex; workspaces: WorkspaceRegistry; clock: Clock },
  root: string,
  opts: { name?: string; reopen: boolean; extraSessions?: number },
): { events: NewStreamEvent[]; workspace: ReturnType<typeof toWorkspaceObject>; created: boolean } {
  const id = workspaceIdFor(root);
  const now = deps.clock.now().toISOString();
  const prev = deps.workspaces.get(id);
  const state: WorkspaceState = prev
    ? { id, root: prev.root, name: prev.name, created_at: prev.created_at, last_opened_at: opts.reopen ? now : prev.last_opened_at }
    : { id, root, name: opts.name ?? (path.basename(root) || root), created_at: now, last_opened_at: now };
  const workspace = toWorkspaceObject(deps, { ...state, trusted: prev?.trusted ?? false }, opts.extraSessions ?? 0);
  const type: DurableType = prev ? 'event.workspace.updated' : 'event.workspace.created';
  return { events: [{ stream: GLOBAL_STREAM, type, payload: workspace }], workspace, created: !prev };
}
