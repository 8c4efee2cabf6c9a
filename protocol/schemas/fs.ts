import path from 'node:path';
import * as v from 'valibot';
import { GlobList, Id, LIMITS, PathOrEmpty, PathString, SafeUint } from './common.ts';

const RuntimeId = v.optional(v.pipe(v.string('must be a string'), v.maxLength(LIMITS.idChars, `must be at most ${LIMITS.idChars} characters`), v.description('`local` (default); any other value is 40420')));
const RelPath = v.pipe(PathString, v.description(`relative to the session work directory (or absolute inside an additional dir); at most ${LIMITS.pathBytes} bytes`));
const Bool = v.boolean('must be a boolean');
function int(min: number, max: number) {
  return v.pipe(v.number('must be a number'), v.integer('must be an integer'), v.minValue(min, `must be >= ${min}`), v.maxValue(max, `must be <= ${max}`));
}
const AbsPath = v.pipe(PathString, v.check((s) => path.isAbsolute(s), 'must be an absolute path'));

export const GitFileStatus = v.picklist(['clean', 'modified', 'added', 'deleted', 'renamed', 'untracked', 'ignored', 'conflicted']);

/** Part B "File entry object". */
export const FileEntry = v.pipe(
  v.object({
    path: v.pipe(v.string(), v.description('workspace-relative, `/`-separated (`.` is the root; absolute inside an additional dir)')),
    name: v.string(),
    kind: v.picklist(['file', 'directory', 'symlink']),
    size: v.optional(v.pipe(v.number(), v.description('bytes; files only'))),
    modified_at: v.string(),
    etag: v.optional(v.pipe(v.string(), v.description('regular files; the same value the download route sends as ETag'))),
    mime: v.optional(v.string()),
    language_id: v.optional(v.pipe(v.string(), v.description('editor language id from the file name'))),
    is_binary: v.optional(v.pipe(v.boolean(), v.description('stat: sniffed from the first 8 KiB; list: from the extension, absent when unknown'))),
    is_symlink_to: v.optional(v.pipe(v.string(), v.description('the link target as stored; a symlink entry describes the link itself (no size/etag/mime)'))),
    git_status: v.optional(GitFileStatus),
    child_count: v.optional(v.pipe(v.number(), v.description('directories: children visible under the same filters (stat: list defaults)'))),
  }),
  v.description('A file, directory or symlink.'),
);

const ListSort = v.picklist(['type_first', 'name_asc', 'name_desc', 'mtime_desc', 'size_desc'], 'must be type_first, name_asc, name_desc, mtime_desc or size_desc');

/** List options shared by fs:list and fs:list_many. */
const listOptions = {
  runtime_id: RuntimeId,
  depth: v.optional(v.pipe(int(1, 10), v.description('1-10, default 1'))),
  limit: v.optional(v.pipe(int(1, 1000), v.description('1-1000, default 200: entries returned in all, levels included'))),
  show_hidden: v.optional(v.pipe(Bool, v.description('default false: dot-files skipped'))),
  follow_gitignore: v.optional(v.pipe(Bool, v.description('default true: .gitignore files (and .git/info/exclude) honoured, `.git` skipped'))),
  exclude_globs: v.optional(v.pipe(GlobList,
    v.description('picomatch globs; with a `/` they match the workspace-relative path, without one the base name'))),
  sort: v.optional(v.pipe(ListSort, v.description('default type_first (directories first, then name); names compare case-insensitively with numeric order'))),
  include_git_status: v.optional(v.pipe(Bool, v.description('default false; directories read `modified` when they hold changes'))),
};

export const FsListBody = v.object({ path: v.optional(RelPath), ...listOptions });
export const FsListData = v.object({
  items: v.array(FileEntry),
  truncated: v.boolean(),
  children_by_path: v.optional(v.pipe(v.record(v.string(), v.array(FileEntry)), v.description('depth > 1: listed directory path -> its children, breadth first until `limit`'))),
});

export const FsListManyBody = v.object({
  paths: v.pipe(v.array(RelPath, 'must be an array of paths'), v.minLength(1, 'must hold 1-100 paths'), v.maxLength(100, 'must hold 1-100 paths')),
  ...listOptions,
});
export const FsPartialError = v.object({ code: v.number(), msg: v.string() });
export const FsListManyData = v.object({
  results: v.pipe(v.record(v.string(), v.array(FileEntry)), v.description('path as given -> top-level entries')),
  truncated_paths: v.array(v.string()),
  partial_errors: v.record(v.string(), FsPartialError),
  children_by_path: v.optional(v.record(v.string(), v.array(FileEntry))),
});

export const FsReadBody = v.object({
  runtime_id: RuntimeId,
  path: RelPath,
  offset: v.optional(v.pipe(SafeUint, v.description('byte offset, default 0'))),
  length: v.optional(v.pipe(int(1, 10485760), v.description('bytes, 1-10485760, default 1048576'))),
  encoding: v.optional(v.pipe(v.picklist(['auto', 'utf-8', 'base64'], 'must be auto, utf-8 or base64'),
    v.description('auto (default): utf-8 for text (UTF-16 BOM and windows-1252 text transcoded), base64 for binary'))),
});
export const FsReadData = v.object({
  path: v.string(),
  content: v.string(),
  encoding: v.picklist(['utf-8', 'base64']),
  size: v.pipe(v.number(), v.description('full file size in bytes')),
  truncated: v.pipe(v.boolean(), v.description('offset + length < size')),
  etag: v.string(),
  mime: v.string(),
  language_id: v.optional(v.string()),
  line_count: v.optional(v.pipe(v.number(), v.description('text files: lines of the whole file'))),
  is_binary: v.boolean(),
});

export const FsPathBody = v.object({ runtime_id: RuntimeId, path: RelPath });
export const FsStatManyBody = v.object({
  runtime_id: RuntimeId,
  paths: v.pipe(v.array(RelPath, 'must be an array of paths'), v.minLength(1, 'must hold 1-1000 paths'), v.maxLength(1000, 'must hold 1-1000 paths')),
});
export const FsStatManyData = v.object({
  entries: v.pipe(v.record(v.string(), v.nullable(FileEntry)), v.description('path as given -> entry, null when missing, escaping or unreadable')),
});

export const FsMkdirBody = v.object({ runtime_id: RuntimeId, path: RelPath, recursive: v.optional(v.pipe(Bool, v.description('default false'))) });

const Line = v.optional(v.pipe(int(1, Number.MAX_SAFE_INTEGER), v.description('positive line number')));
export const FsOpenBody = v.object({ runtime_id: RuntimeId, path: RelPath, line: Line });
export const FsOpenInBody = v.object({
  runtime_id: RuntimeId,
  app_id: v.pipe(v.picklist(['file_manager', 'editor_a', 'editor_b', 'terminal_a', 'terminal_b'], 'must be file_manager, editor_a, editor_b, terminal_a or terminal_b'),
    v.description('each runs the command line in SVC_CODE_OPEN_<APP_ID> ({path}, {dir}, {line} filled; else the path appended); an unset file_manager uses the platform opener')),
  path: RelPath,
  line: Line,
});
export const FsOpened = v.object({ opened: v.literal(true) });
export const FsRevealed = v.object({ revealed: v.literal(true) });

export const FsDownloadParams = v.object({
  session_id: Id,
  path: PathOrEmpty,
});
export const FsSessionParams = v.object({ session_id: Id });
export const RuntimeQuery = v.object({ runtime_id: v.optional(v.pipe(v.string('must be a string'), v.maxLength(LIMITS.idChars, `must be at most ${LIMITS.idChars} characters`))) });

export const HostBrowseQuery = v.object({ path: v.optional(v.pipe(AbsPath, v.description('absolute; default the home directory'))) });
export const HostBrowseData = v.object({
  path: v.string(),
  parent: v.nullable(v.string()),
  entries: v.pipe(v.array(v.object({ name: v.string(), path: v.string(), is_dir: v.literal(true) })),
    v.description('sub-directories only (symlinks to directories and hidden directories included), by name')),
});
export const HostHomeData = v.object({ home: v.string(), recent_roots: v.pipe(v.array(v.string()), v.description('workspace roots, most recently opened first')) });
export const HostPathQuery = v.object({ path: AbsPath });
export const HostMkdirBody = v.object({ path: AbsPath });
export const HostMkdirData = v.object({ path: v.string() });
