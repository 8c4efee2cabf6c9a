import path from 'node:path';
import type { SessionRecord } from '../../../projections/session-index/session-index.ts';
import { Codes } from '../../../protocol/codes.ts';
import { ApiError, notFound } from '../../../protocol/errors.ts';
import { RUNTIMES } from '../../sessions/info.ts';
import type { EventJournal } from '../../events/journal.ts';
import type { Clock } from '../../lib/clock.ts';
import { findSession, type SessionLookup } from '../../sessions/lookup.ts';
import { existingDirectory, workspaceUpsertEvents } from '../../workspaces/service.ts';
import { workspaceIdFor } from '../../workspaces/ids.ts';

/** Only the local runtime exists; any other `runtime_id` is 40420. */
export function assertRuntime(runtimeId: string | undefined): void {
  const id = runtimeId ?? 'local';
  if (!(RUNTIMES as readonly string[]).includes(id)) {
    throw new ApiError(Codes.RUNTIME_NOT_FOUND, `runtime not found: ${id}`, { details: { runtime_id: id, known: RUNTIMES } });
  }
}

/** The session's root (its cwd), which must still be a directory (40409 otherwise). */
export async function sessionRoot(s: SessionRecord): Promise<string> {
  return existingDirectory(s.cwd, 'session_id');
}

/**
 * The `{session_id}` slot of fs:search: a session id, else (for a draft
 * session) a registered workspace id or an absolute root, registered or not.
 * An unregistered absolute root is searched without registering it (a read
 * should not create state). 40401 when nothing resolves, including an
 * absolute path that is not an existing directory.
 */
export async function searchSlotRoot(deps: SessionLookup, ref: string): Promise<string> {
  const s = deps.sessions.get(ref);
  if (s) return sessionRoot(findSession(deps, ref));
  const w = deps.workspaces.get(ref) ?? (path.isAbsolute(ref) ? deps.workspaces.get(workspaceIdFor(path.resolve(ref))) : undefined);
  const root = w?.root ?? (path.isAbsolute(ref) ? path.resolve(ref) : undefined);
  if (root) {
    try {
      return await existingDirectory(root, 'session_id');
    } catch {
      /* reported below */
    }
  }
  throw notFound(Codes.SESSION_NOT_FOUND, 'session or workspace', ref);
}

/**
 * `workspace` of POST /api/v1/workspace/fs:*: a registered id, or an absolute
 * root, registered on the spot (event.workspace.created) when it is an
 * existing directory not yet known. 40410 for an unknown id, a relative path,
 * or a root that is not an existing directory (the spec lists 40410 for this
 * route; details.reason says which).
 */
export async function workspaceRoot(deps: SessionLookup & { journal: EventJournal; clock: Clock }, ref: string): Promise<string> {
  const byId = deps.workspaces.get(ref);
  const abs = path.isAbsolute(ref) ? path.resolve(ref) : undefined;
  const w = byId ?? (abs ? deps.workspaces.get(workspaceIdFor(abs)) : undefined);
  const root = w?.root ?? abs;
  if (!root) throw notFound(Codes.WORKSPACE_NOT_FOUND, 'workspace', ref);
  try {
    await existingDirectory(root, 'workspace');
  } catch {
    throw new ApiError(Codes.WORKSPACE_NOT_FOUND, `workspace root is not an existing directory: ${root}`, {
      details: { workspace: ref, root, reason: 'directory_missing' },
    });
  }
  if (!w) {
    // Decide and append in the same tick: the projection applies synchronously in append().
    const reg = workspaceUpsertEvents(deps, root, { reopen: false });
    if (reg.created) await deps.journal.append(reg.events);
  }
  return root;
}
