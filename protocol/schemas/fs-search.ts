import * as v from 'valibot';
import { FuzzyQueryString, GlobList, Id, LIMITS, PathString, boundedArray, boundedString } from './common.ts';

function intIn(min: number, max: number, def: number, what: string) {
  return v.optional(
    v.pipe(v.number('must be a number'), v.integer('must be an integer'), v.minValue(min, `must be ${min}-${max}`), v.maxValue(max, `must be ${min}-${max}`), v.description(`${what}: ${min}-${max}, default ${def}`)),
  );
}

const RuntimeId = v.optional(v.pipe(Id, v.description('Runtime that serves the request: only `local` exists (default); any other value is 40420.')));
const Globs = (what: string) => v.optional(v.pipe(GlobList, v.description(what)));
const IncludeGlobs = Globs('Keep only paths matching one of these globs (ripgrep `-g` rules: a glob without `/` matches a basename at any depth, one with `/` the path from the root; `src/**` for everything under src).');
const ExcludeGlobs = Globs('Drop paths matching any of these globs (a matching directory drops everything under it).');
const FollowGitignore = v.optional(v.pipe(v.boolean('must be a boolean'), v.description('Honour .gitignore/.ignore files (default true; inside or outside a git repository).')));
const SearchLimit = intIn(1, 200, 50, 'Most hits returned');

/** `{session_id}` of fs:search: a session id, or for a draft session a workspace id or a URL-encoded absolute root. */
export const FsSearchSlotParams = v.object({
  session_id: v.pipe(PathString, v.description('Session id; fs:search also takes, for a draft session, a registered workspace id or an absolute directory (URL-encoded; searched without being registered). 40401 when none of these resolves to an existing directory.')),
});

export const FsSearchBody = v.pipe(
  v.object({
    query: v.pipe(FuzzyQueryString, v.description(`Fuzzy query (case-insensitive subsequence, whitespace ignored); empty lists the top level. At most ${LIMITS.queryChars} characters.`)),
    limit: SearchLimit,
    include_globs: IncludeGlobs,
    exclude_globs: ExcludeGlobs,
    follow_gitignore: FollowGitignore,
    runtime_id: RuntimeId,
  }),
  v.description(
    'Fuzzy path search over the files of the session root (not its additional dirs; hidden files included, `.git` never, symlinks not followed) and the directories that hold them (kind `directory`; empty directories are not indexed). '
    + 'The listing is cached per root for 15 s, then refreshed in the background (a file created a moment ago may show up one search late).',
  ),
);
export type FsSearchBody = v.InferOutput<typeof FsSearchBody>;

const WorkspaceRef = v.pipe(PathString, v.description('Registered workspace id, or an absolute root (registered on the spot, event.workspace.created, when it is an existing directory not yet registered). An unknown id, a relative path or a root that is not an existing directory is 40410 (details.reason `directory_missing` for the latter).'));

export const WorkspaceFsSearchBody = v.object({ workspace: WorkspaceRef, ...FsSearchBody.entries });

export const WorkspaceFsSuggestBody = v.pipe(
  v.object({
    workspace: WorkspaceRef,
    query: v.pipe(FuzzyQueryString, v.description(`What has been typed after \`@\`; a \`/\` makes it a path prefix. At most ${LIMITS.queryChars} characters.`)),
    limit: SearchLimit,
    follow_gitignore: FollowGitignore,
    show_hidden: v.optional(v.pipe(v.boolean('must be a boolean'), v.description('Include dotfiles and files under dot-directories (default false).'))),
    include_globs: IncludeGlobs,
    exclude_globs: ExcludeGlobs,
    runtime_id: RuntimeId,
  }),
  v.description('File-mention completion. Same matcher as fs:search, but hidden entries are left out unless show_hidden, a basename prefix of the query (or a path prefix, when the query contains `/`) lifts a hit to score >= 0.5, and directories score x0.85, so files come first.'),
);

export const FsSearchHit = v.object({
  path: v.pipe(v.string(), v.description('Relative to the root, `/`-separated')),
  name: v.string(),
  kind: v.picklist(['file', 'directory']),
  score: v.pipe(v.number(), v.description(
    '0-1, rounded to 4 decimals. Per matched character: 1, +1 when it extends a consecutive run (else +0.8 at a segment start: after / _ - . or a space, at a camelCase hump; the first character gets +1 there), +0.5 inside the basename. '
    + 'quality = sum / (2.5 x query length); score = 0.85 x quality + 0.15 x query length / length of the basename (of the whole path when a match lies outside the basename). '
    + 'An exact basename match scores 1.',
  )),
  match_positions: v.pipe(v.array(v.number()), v.description('Unicode code point indices into `path` of the matched query characters')),
});

export const FsSearchData = v.pipe(
  v.object({ items: v.array(FsSearchHit), truncated: v.pipe(v.boolean(), v.description('More paths matched than `limit` (or the root has over 500,000 files and only those were indexed)')) }),
  v.description('Score descending, then path ascending.'),
);

export const FsGrepBody = v.pipe(v.object({
  pattern: v.pipe(boundedString(LIMITS.patternChars), v.description(`Literal text, or a ripgrep (Rust) regex when \`regex\` is true; at most ${LIMITS.patternChars} characters`)),
  regex: v.optional(v.boolean('must be a boolean')),
  case_sensitive: v.optional(v.boolean('must be a boolean')),
  include_globs: IncludeGlobs,
  exclude_globs: ExcludeGlobs,
  follow_gitignore: FollowGitignore,
  max_files: intIn(1, 10_000, 200, 'Most files with matches returned'),
  max_matches_per_file: intIn(1, 10_000, 50, 'Most matching lines returned per file'),
  max_total_matches: intIn(1, 100_000, 5000, 'Most matching lines returned in all'),
  context_lines: intIn(0, 10, 2, 'Lines of context before and after each match'),
  runtime_id: RuntimeId,
}), v.description('ripgrep over the session root: hidden files searched, `.git` and binary files skipped, symlinks not followed. Past the deadline (10 s; SVC_CODE_GREP_TIMEOUT_MS) ripgrep is stopped and the answer is 41305; a pattern or glob ripgrep refuses is 40001.'));
export type FsGrepBody = v.InferOutput<typeof FsGrepBody>;

export const GrepMatchObject = v.object({
  line: v.pipe(v.number(), v.description('1-based line number')),
  col: v.pipe(v.number(), v.description('1-based column, in Unicode code points, of the first match on the line')),
  text: v.pipe(v.string(), v.description('The matching line without its line break (cut at 4096 characters; non-UTF-8 bytes replaced)')),
  before: v.array(v.string()),
  after: v.array(v.string()),
});

export const FsGrepData = v.object({
  files: v.pipe(v.array(v.object({ path: v.string(), matches: v.array(GrepMatchObject) })), v.description('By path ascending; one match per matching line')),
  files_scanned: v.pipe(v.number(), v.description('Files ripgrep searched; when stopped early at a limit, the files with matches seen so far')),
  truncated: v.pipe(v.boolean(), v.description('A limit was reached: ripgrep was stopped and more matches may exist')),
  elapsed_ms: v.number(),
});

export const FsGitStatusBody = v.object({
  paths: v.optional(v.pipe(boundedArray(PathString), v.description('Only entries under these paths (relative to the session root)'))),
  runtime_id: RuntimeId,
});

const GitEntryStatus = v.picklist(['modified', 'added', 'deleted', 'renamed', 'untracked', 'ignored', 'conflicted']);

export const FsGitStatusData = v.object({
  branch: v.pipe(v.nullable(v.string()), v.description('Current branch; null when HEAD is detached')),
  ahead: v.number(),
  behind: v.number(),
  entries: v.pipe(v.record(v.string(), GitEntryStatus), v.description('Path (relative to the session root) -> status; ignored directories appear once, without their contents')),
  additions: v.pipe(v.number(), v.description('Lines added: `git diff --numstat HEAD` plus the lines of untracked text files (up to 2000 files of 1 MiB)')),
  deletions: v.pipe(v.number(), v.description('Lines deleted: `git diff --numstat HEAD`')),
  pullRequest: v.pipe(v.null(), v.description('Always null: no network lookups')),
});

export const FsDiffBody = v.object({
  path: v.pipe(PathString, v.description('File or directory relative to the session root')),
  runtime_id: RuntimeId,
});

export const FsDiffData = v.object({
  path: v.string(),
  diff: v.pipe(v.string(), v.description('Unified diff against HEAD; untracked files against /dev/null; empty when unchanged')),
  truncated: v.pipe(v.boolean(), v.description('Cut at 1 MiB, at a line end')),
});
