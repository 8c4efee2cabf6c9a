import path from 'node:path';
import type Koa from 'koa';
import { confine, confiner } from '../../fs/confine.ts';
import { gitDiff } from '../../fs/git/diff.ts';
import { gitStatus } from '../../fs/git/status.ts';
import { runGrep } from '../../fs/grep.ts';
import { DEFAULT_INDEX_CACHE, FileIndexCache } from '../../fs/search/cache.ts';
import { assertRuntime, searchSlotRoot, sessionRoot } from '../../fs/search/target.ts';
import { searchIndex } from '../../fs/search/search.ts';
import { findSession } from '../../sessions/lookup.ts';
import { Codes } from '../../../protocol/codes.ts';
import { route, type RouteDef } from '../route.ts';
import {
  FsDiffBody, FsDiffData, FsGitStatusBody, FsGitStatusData, FsGrepBody, FsGrepData, FsSearchBody, FsSearchData, FsSearchSlotParams,
} from '../../../protocol/schemas/fs-search.ts';
import { SessionIdParams } from '../../../protocol/schemas/sessions.ts';
import type { EventJournal } from '../../events/journal.ts';
import type { SessionFsDeps } from '../../fs/scope.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Settings } from '../../app/settings.ts';

const tags = ['file system'];

export type FsSearchRouteDeps = SessionFsDeps & {
  journal: EventJournal;
  clock: Clock;
  /** `SVC_CODE_GREP_TIMEOUT_MS`: a fs:grep longer than this is 41305 (default DEFAULT_GREP_TIMEOUT_MS). */
  settings: Pick<Settings, 'grepTimeoutMs'>;
};

/** The file-index cache fs:search of a session and of a workspace (workspace-fs.ts) share; built once by the route index. */
export function fileIndexes(deps: { clock: Clock }): FileIndexCache {
  return new FileIndexCache({ ...DEFAULT_INDEX_CACHE, now: () => deps.clock.now().getTime() });
}

/** Stops work for a client that has gone away. */
function clientGone(ctx: Koa.Context): AbortSignal {
  const ac = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) ac.abort();
  });
  return ac.signal;
}

/** fs:search/grep/git_status/diff of a session. */
export function sessionFsSearchRoutes(deps: FsSearchRouteDeps, indexes: FileIndexCache): RouteDef[] {
  const { grepTimeoutMs } = deps.settings;
  return [
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/fs:search', operationId: 'sessionFsSearch', summary: 'Fuzzy path search in the session root (or a draft session\'s workspace)', tags,
      params: FsSearchSlotParams, body: FsSearchBody, data: FsSearchData,
      codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND, Codes.PATH_NOT_FOUND, Codes.RUNTIME_NOT_FOUND, Codes.SEARCH_TIMEOUT],
      handler: async ({ params, body }) => {
        const root = await searchSlotRoot(deps, params.session_id);
        assertRuntime(body.runtime_id);
        const index = await indexes.get(root, body.follow_gitignore ?? true);
        return searchIndex(index, { ...body, limit: body.limit ?? 50, mode: 'search' });
      },
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/fs:grep', operationId: 'sessionFsGrep', summary: 'Search file contents with ripgrep', tags,
      params: SessionIdParams, body: FsGrepBody, data: FsGrepData,
      codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND, Codes.PATH_NOT_FOUND, Codes.RUNTIME_NOT_FOUND, Codes.SEARCH_TIMEOUT],
      handler: async ({ params, body, ctx }) => {
        const s = findSession(deps, params.session_id);
        assertRuntime(body.runtime_id);
        return runGrep(await sessionRoot(s), {
          pattern: body.pattern,
          regex: body.regex ?? false,
          caseSensitive: body.case_sensitive ?? true,
          includeGlobs: body.include_globs ?? [],
          excludeGlobs: body.exclude_globs ?? [],
          followGitignore: body.follow_gitignore ?? true,
          limits: {
            maxFiles: body.max_files ?? 200,
            maxMatchesPerFile: body.max_matches_per_file ?? 50,
            maxTotalMatches: body.max_total_matches ?? 5000,
            contextLines: body.context_lines ?? 2,
          },
          timeoutMs: grepTimeoutMs,
          signal: clientGone(ctx),
        });
      },
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/fs:git_status', operationId: 'sessionFsGitStatus', summary: 'Branch, upstream distance and changed files of the session root\'s repository', tags,
      params: SessionIdParams, body: FsGitStatusBody, data: FsGitStatusData,
      codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND, Codes.PATH_NOT_FOUND, Codes.RUNTIME_NOT_FOUND, Codes.GIT_UNAVAILABLE, Codes.PATH_ESCAPE],
      handler: async ({ params, body }) => {
        const s = findSession(deps, params.session_id);
        assertRuntime(body.runtime_id);
        const root = await sessionRoot(s);
        let specs = ['.'];
        if (body.paths) {
          // Paths in an additional dir belong to another tree: they cannot restrict this repository's entries.
          const confineIn = await confiner(deps, s); // the roots listed and resolved once for every path
          const confined = await Promise.all(body.paths.map((p) => confineIn(p)));
          specs = confined.filter((c) => c.root === s.cwd).map((c) => path.relative(root, c.abs) || '.');
        }
        const result = await gitStatus(root, specs.length ? specs : ['.']);
        return specs.length ? result : { ...result, entries: {}, additions: 0, deletions: 0 };
      },
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/fs:diff', operationId: 'sessionFsDiff', summary: 'Unified diff of a path against HEAD', tags,
      params: SessionIdParams, body: FsDiffBody, data: FsDiffData,
      codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND, Codes.RUNTIME_NOT_FOUND, Codes.GIT_UNAVAILABLE, Codes.PATH_ESCAPE],
      handler: async ({ params, body }) => {
        const s = findSession(deps, params.session_id);
        assertRuntime(body.runtime_id);
        const c = await confine(deps, s, body.path);
        const { diff, truncated } = await gitDiff(c.root, path.relative(c.root, c.abs) || '.');
        return { path: c.rel, diff, truncated };
      },
    }),
  ];
}
