import { execFile } from 'node:child_process';
import { cp, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { unzipSync } from 'fflate';
import type { RefKind, RepoInfo } from './layout.ts';
import { readBoundedBody } from '../lib/bounded-body.ts';
import { childEnv } from '../lib/child-env.ts';

/** A POST /plugins `source`, classified (Part B "Capabilities and plugins"). */
export type ParsedSource =
  | { kind: 'local-path'; path: string }
  | { kind: 'zip-url'; url: URL }
  | { kind: 'repo'; url: URL; cloneUrl: string; owner: string; repo: string; ref?: { kind: RefKind; value: string } };

/** A source that is refused (40001), with the reason. */
export class SourceError extends Error {}
/** A local path that does not exist (40409). */
export class MissingPathError extends Error {}

/** Largest zip archive downloaded, and largest total size unpacked. */
export const ZIP_MAX_BYTES = 50 * 1024 * 1024;
export const UNPACKED_MAX_BYTES = 200 * 1024 * 1024;
export const UNPACKED_MAX_ENTRIES = 20_000;
/** A download or a git command that takes longer fails the install. */
export const FETCH_TIMEOUT_MS = 120_000;

const SEG = /^[A-Za-z0-9._-]{1,100}$/;
const HEX_SHA = /^[0-9a-f]{7,40}$/i;
const REF = /^[A-Za-z0-9._\/-]{1,200}$/;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** Plain http is taken only for a loopback host and only when the test setting allows it (SVC_CODE_PLUGINS_ALLOW_LOOPBACK_HTTP). */
export function plainHttpAllowed(url: URL, allowLoopbackHttp: boolean): boolean {
  return url.protocol === 'http:' && LOOPBACK.has(url.hostname) && allowLoopbackHttp;
}

/** Reads a `source` string: an absolute path, a zip URL, or a repository URL with an optional pin. */
export function parseSource(source: string, allowLoopbackHttp = false): ParsedSource {
  if (path.isAbsolute(source) && !/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) return { kind: 'local-path', path: path.resolve(source) };
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    throw new SourceError('source must be an absolute local path or an http(s) URL');
  }
  if (url.protocol !== 'https:' && !plainHttpAllowed(url, allowLoopbackHttp)) {
    throw new SourceError(url.protocol === 'http:' ? 'plain http is refused; use https' : 'source must be an absolute local path or an http(s) URL');
  }
  if (url.username || url.password) throw new SourceError('credentials in the URL are refused');
  const segs = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (url.pathname.toLowerCase().endsWith('.zip') || segs.length < 2) return { kind: 'zip-url', url };
  const [owner, rawRepo, kind, ...rest] = segs;
  const repo = rawRepo.replace(/\.git$/, '');
  if (!SEG.test(owner) || !SEG.test(repo)) throw new SourceError('repository owner and name must be letters, digits, ".", "_" or "-"');
  const cloneUrl = `${url.protocol}//${url.host}/${owner}/${rawRepo}`;
  if (kind === undefined) return { kind: 'repo', url, cloneUrl, owner, repo };
  const value = rest.join('/');
  const pin = (k: RefKind) => {
    if (!value || !REF.test(value) || value.includes('..') || value.startsWith('-')) throw new SourceError(`bad ${k} in the repository URL`);
    if (k === 'sha' && !HEX_SHA.test(value)) throw new SourceError('a commit must be a hex sha');
    return { kind: 'repo' as const, url, cloneUrl, owner, repo, ref: { kind: k, value } };
  };
  if (kind === 'tree') return pin(HEX_SHA.test(value) && /^[0-9a-f]{40}$/i.test(value) ? 'sha' : 'branch');
  if (kind === 'commit') return pin('sha');
  if (kind === 'releases' && rest[0] === 'tag') {
    const tag = rest.slice(1).join('/');
    if (!tag || !REF.test(tag) || tag.includes('..') || tag.startsWith('-')) throw new SourceError('bad tag in the repository URL');
    return { kind: 'repo', url, cloneUrl, owner, repo, ref: { kind: 'tag', value: tag } };
  }
  throw new SourceError('a repository URL may be pinned only with /tree/<ref>, /releases/tag/<tag> or /commit/<sha>');
}

/** The source as recorded: no query, no fragment, no credentials. */
export function displaySource(source: string, parsed: ParsedSource): string {
  if (parsed.kind === 'local-path') return parsed.path;
  const u = new URL(parsed.url);
  u.search = '';
  u.hash = '';
  return u.toString() || source;
}

/** Copies a local plugin folder into `dest`. */
export async function copyLocal(src: string, dest: string): Promise<void> {
  const st = await stat(src).catch(() => undefined);
  if (!st) throw new MissingPathError(`local path not found: ${src}`);
  if (!st.isDirectory()) throw new SourceError('a local source must be a directory');
  // Checked before copying, so a path such as `/` is refused rather than copied.
  if (!(await stat(path.join(src, 'plugin.json')).then((m) => m.isFile(), () => false))) throw new SourceError('no plugin.json at the plugin\'s root');
  await cp(src, dest, { recursive: true, filter: (p) => path.basename(p) !== '.git' });
}

/** Downloads a zip (bounded, with a timeout) and unpacks it into `dest`, refusing entries that escape it. */
export async function fetchZip(url: URL, dest: string): Promise<void> {
  let res: Response;
  try {
    res = await fetch(url, { redirect: 'follow', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch (err) {
    throw new SourceError(`download failed: ${(err as Error).message}`);
  }
  if (!res.ok) throw new SourceError(`download failed: HTTP ${res.status}`);
  const zip = await readBoundedBody(res, ZIP_MAX_BYTES, () => new SourceError(`archive larger than ${ZIP_MAX_BYTES} bytes`));
  let files: Record<string, Uint8Array>;
  let entries = 0;
  let unpacked = 0;
  try {
    files = unzipSync(zip, {
      filter: (f) => {
        if (++entries > UNPACKED_MAX_ENTRIES) throw new SourceError(`archive has more than ${UNPACKED_MAX_ENTRIES} entries`);
        unpacked += f.originalSize;
        if (unpacked > UNPACKED_MAX_BYTES) throw new SourceError(`archive unpacks to more than ${UNPACKED_MAX_BYTES} bytes`);
        return true;
      },
    });
  } catch (err) {
    if (err instanceof SourceError) throw err;
    throw new SourceError(`not a zip archive: ${(err as Error).message}`);
  }
  const root = path.resolve(dest);
  for (const [name, data] of Object.entries(files)) {
    const target = path.resolve(root, name);
    if (target !== root && !target.startsWith(root + path.sep)) throw new SourceError(`archive entry escapes the plugin folder: ${name}`);
    if (name.endsWith('/')) {
      await mkdir(target, { recursive: true });
      continue;
    }
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, data);
  }
}

function git(args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', ['-c', 'protocol.allow=never', '-c', 'protocol.https.allow=always', '-c', 'protocol.http.allow=always', ...args], {
      cwd, timeout: FETCH_TIMEOUT_MS, maxBuffer: 1024 * 1024,
      env: childEnv({ GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: 'echo', GIT_CONFIG_NOSYSTEM: '1', LC_ALL: 'C' }),
    }, (err, stdout, stderr) => {
      if (err) reject(new SourceError(`git ${args[0]} failed: ${(stderr || err.message).trim().split('\n').slice(-2).join(' ')}`));
      else resolve(stdout.trim());
    });
  });
}

/** Fetches a repository at its pin with the git CLI into `dest`; answers the repo info with the installed sha. */
export async function fetchRepo(src: Extract<ParsedSource, { kind: 'repo' }>, dest: string): Promise<RepoInfo> {
  await mkdir(dest, { recursive: true });
  await git(['init', '-q', '.'], dest);
  await git(['remote', 'add', 'origin', src.cloneUrl], dest);
  let ref = src.ref;
  if (!ref) {
    await git(['fetch', '-q', '--depth', '1', 'origin', 'HEAD'], dest);
    const head = await git(['ls-remote', '--symref', 'origin', 'HEAD'], dest);
    const branch = /ref: refs\/heads\/(\S+)\s+HEAD/.exec(head)?.[1] ?? 'HEAD';
    ref = { kind: 'branch', value: branch };
  } else if (ref.kind === 'sha') {
    // A full sha can be fetched directly where the server allows it; otherwise the branches are fetched.
    await git(['fetch', '-q', '--depth', '1', 'origin', ref.value], dest).catch(() => git(['fetch', '-q', 'origin'], dest));
  } else {
    const full = ref.kind === 'tag' ? `refs/tags/${ref.value}` : `refs/heads/${ref.value}`;
    await git(['fetch', '-q', '--depth', '1', 'origin', full], dest);
  }
  if (ref.kind === 'sha') {
    await git(['checkout', '-q', '--detach', `${ref.value}^{commit}`], dest).catch(() => {
      throw new SourceError(`commit ${ref!.value} not found`);
    });
  } else {
    await git(['checkout', '-q', '--detach', 'FETCH_HEAD'], dest);
  }
  const installedSha = await git(['rev-parse', 'HEAD'], dest);
  await rm(path.join(dest, '.git'), { recursive: true, force: true });
  return { owner: src.owner, repo: src.repo, ref, installedSha };
}
