import { GLOBAL_STREAM } from '../../journal/keys.ts';
import type { AppContext } from '../app/context.ts';
import { GlobalEvents } from '../events/types.ts';
import { existingDirectory, findWorkspace, toWorkspaceObject, workspaceUpsertEvents } from './service.ts';

/** Most recently opened first; ties by id, so the order is stable. */
export function listWorkspaces(app: AppContext) {
  const items = app.workspaces
    .all()
    .sort((a, b) => (a.last_opened_at === b.last_opened_at ? (a.id < b.id ? -1 : 1) : a.last_opened_at < b.last_opened_at ? 1 : -1))
    .map((w) => toWorkspaceObject(app, w));
  return { items };
}

/**
 * POST /api/v1/workspaces. The root is normalised with path.resolve only (no
 * realpath), the same rule session creation applies to `metadata.cwd`, so both
 * routes derive the same id for the same path. Re-registering keeps the name
 * and refreshes `last_opened_at` (event.workspace.updated).
 */
export async function registerWorkspace(app: AppContext, input: { root: string; name?: string }) {
  const root = await existingDirectory(input.root, 'root');
  // Decide and append in the same tick: the projection applies synchronously in append().
  const reg = workspaceUpsertEvents(app, root, { name: input.name, reopen: true });
  await app.journal.append(reg.events);
  return toWorkspaceObject(app, findWorkspace(app, reg.workspace.id));
}

export async function renameWorkspace(app: AppContext, id: string, name: string) {
  const w = findWorkspace(app, id);
  const next = toWorkspaceObject(app, { ...w, name });
  await app.journal.append([{ stream: GLOBAL_STREAM, type: GlobalEvents.workspaceUpdated, payload: next }]);
  return next;
}

/**
 * Unregisters only: sessions stay in the journal and read as 40401 until the
 * root is registered again (same id). Trust and the in-memory add-dir set are
 * forgotten with the registration.
 */
export async function deleteWorkspace(app: AppContext, id: string) {
  const w = findWorkspace(app, id);
  await app.journal.append([{ stream: GLOBAL_STREAM, type: GlobalEvents.workspaceDeleted, payload: { workspace_id: w.id, root: w.root } }]);
  app.workspaceDirs.forget(w.id);
  return { deleted: true as const };
}

/**
 * Trust and untrust. `workspace.trust_changed` {workspace_id, trusted} on the
 * global stream is internal (not one of the spec's broadcast events); it is
 * appended only when the state changes and is the seam where project MCP
 * config loading hooks in (journal 'committed').
 */
export async function setWorkspaceTrust(app: AppContext, id: string, trusted: boolean) {
  const w = findWorkspace(app, id);
  if (w.trusted !== trusted) {
    await app.journal.append([{ stream: GLOBAL_STREAM, type: GlobalEvents.workspaceTrustChanged, payload: { workspace_id: w.id, trusted } }]);
  }
  return { trusted };
}
