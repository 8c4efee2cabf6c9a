import { GLOBAL_STREAM } from '../../journal/keys.ts';
import type { NewStreamEvent } from '../../protocol/events/registry.ts';
import type { SessionIndex } from '../../projections/session-index/session-index.ts';
import type { WorkspaceRegistry } from '../../projections/workspaces/workspace-registry.ts';
import type { EventJournal } from '../events/journal.ts';
import type { Clock } from '../lib/clock.ts';
import type { WorkspaceDirs } from './extra-dirs.ts';
import { existingDirectory, findWorkspace, toWorkspaceObject, workspaceUpsertEvents } from './service.ts';

/** What the workspace commands read and append to. */
export interface WorkspaceCommandDeps {
  journal: EventJournal;
  sessions: SessionIndex;
  workspaces: WorkspaceRegistry;
  workspaceDirs: WorkspaceDirs;
  clock: Clock;
}

/** Most recently opened first; ties by id, so the order is stable. */
export function listWorkspaces(deps: Pick<WorkspaceCommandDeps, 'sessions' | 'workspaces'>) {
  const items = deps.workspaces
    .all()
    .sort((a, b) => (a.last_opened_at === b.last_opened_at ? (a.id < b.id ? -1 : 1) : a.last_opened_at < b.last_opened_at ? 1 : -1))
    .map((w) => toWorkspaceObject(deps, w));
  return { items };
}

/**
 * POST /api/v1/workspaces. The root is normalised with path.resolve only (no
 * realpath), the same rule session creation applies to `metadata.cwd`, so both
 * routes derive the same id for the same path. Re-registering keeps the name
 * and refreshes `last_opened_at` (event.workspace.updated).
 */
export async function registerWorkspace(deps: WorkspaceCommandDeps, input: { root: string; name?: string }) {
  const root = await existingDirectory(input.root, 'root');
  // Decide and append in the same tick: the projection applies synchronously in append().
  const reg = workspaceUpsertEvents(deps, root, { name: input.name, reopen: true });
  // Retried after another node's write to the global stream: registered by it meanwhile, this is a reopen.
  await deps.journal.append(reg.events, { recheck: () => workspaceUpsertEvents(deps, root, { name: input.name, reopen: true }).events });
  return toWorkspaceObject(deps, findWorkspace(deps, reg.workspace.id));
}

export async function renameWorkspace(deps: WorkspaceCommandDeps, id: string, name: string) {
  const w = findWorkspace(deps, id);
  const next = toWorkspaceObject(deps, { ...w, name });
  const renamed = (payload: typeof next): NewStreamEvent[] => [{ stream: GLOBAL_STREAM, type: 'event.workspace.updated', payload }];
  // Retried after another node's write: still registered (else 40402, as here), renamed from its state then.
  await deps.journal.append(renamed(next), { recheck: () => renamed(toWorkspaceObject(deps, { ...findWorkspace(deps, id), name })) });
  return toWorkspaceObject(deps, findWorkspace(deps, id));
}

/**
 * Unregisters only: sessions stay in the journal and read as 40401 until the
 * root is registered again (same id). Trust and the in-memory add-dir set are
 * forgotten with the registration.
 */
export async function deleteWorkspace(deps: WorkspaceCommandDeps, id: string) {
  const w = findWorkspace(deps, id);
  const deleted = (x: typeof w): NewStreamEvent[] => [{ stream: GLOBAL_STREAM, type: 'event.workspace.deleted', payload: { workspace_id: x.id, root: x.root } }];
  // Retried after another node's write: deleted by it meanwhile, this answers 40402 as it would have here.
  await deps.journal.append(deleted(w), { recheck: () => deleted(findWorkspace(deps, id)) });
  deps.workspaceDirs.forget(w.id);
  return { deleted: true as const };
}

/**
 * Trust and untrust. `workspace.trust_changed` {workspace_id, trusted} on the
 * global stream is internal (not one of the spec's broadcast events); it is
 * appended only when the state changes and is the seam where project MCP
 * config loading hooks in (journal 'committed').
 */
export async function setWorkspaceTrust(deps: WorkspaceCommandDeps, id: string, trusted: boolean) {
  const w = findWorkspace(deps, id);
  if (w.trusted !== trusted) {
    await deps.journal.append([{ stream: GLOBAL_STREAM, type: 'workspace.trust_changed', payload: { workspace_id: w.id, trusted } }]);
  }
  return { trusted };
}
