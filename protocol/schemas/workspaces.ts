import path from 'node:path';
import * as v from 'valibot';
import { Id, PathString, Unreadable } from './common.ts';

/** Core Limits: 1-100 characters (JavaScript string length); blank names are refused. */
export const WorkspaceName = v.pipe(
  v.string('must be a string'),
  v.minLength(1, 'must be 1-100 characters'),
  v.maxLength(100, 'must be 1-100 characters'),
  v.check((s) => s.trim().length > 0, 'must not be blank'),
);

/** Part B "Workspace object". */
export const WorkspaceObject = v.object({
  id: v.pipe(v.string(), v.description('`wd_<slug>_<hash12>`, derived from the root path')),
  root: v.pipe(v.string(), v.description('absolute path')),
  name: v.string(),
  created_at: v.string(),
  last_opened_at: v.pipe(v.string(), v.description('refreshed on re-registration')),
  session_count: v.number(),
});

export const WorkspaceList = v.pipe(
  v.object({ items: v.array(WorkspaceObject), unreadable: v.optional(Unreadable) }),
  v.description('Most recently opened first (last_opened_at descending), ties by id ascending.'),
);

export const WorkspaceIdParams = v.object({ workspace_id: Id });

export const WorkspaceCreateBody = v.pipe(
  v.object({
    root: v.pipe(
      PathString,
      v.check((s) => path.isAbsolute(s), 'must be an absolute path'),
      v.description('Absolute path of an existing directory; normalised with path.resolve (symlinks are not resolved).'),
    ),
    name: v.optional(WorkspaceName),
  }),
  v.description('Idempotent on root: re-registering returns the existing workspace, name kept, last_opened_at refreshed.'),
);

export const WorkspacePatchBody = v.object({ name: WorkspaceName });

export const WorkspaceDeleted = v.object({ deleted: v.literal(true) });

export const WorkspaceTrust = v.object({ trusted: v.boolean() });

export const AddDirBody = v.object({
  path: v.pipe(
    PathString,
    v.description('Absolute, relative to the workspace root, or `~` / `~/x` (home). Must not resolve to home or `/`.'),
  ),
  persist: v.optional(v.pipe(v.boolean('must be a boolean'), v.description('true (default): append to [workspace] additional_dir in <root>/.svc-code/local.toml; false: in-memory set of the workspace'))),
});

export const AddDirData = v.object({
  project_root: v.string(),
  config_path: v.string(),
  additional_dirs: v.pipe(
    v.array(v.string()),
    v.description('Stored directories: local.toml entries then in-memory ones. Listed even while the workspace is untrusted, when sessions ignore the local.toml entries.'),
  ),
  persisted: v.pipe(v.boolean(), v.description('whether the directory is recorded in local.toml after the call')),
});
