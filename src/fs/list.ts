import type { Stats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { childPath, describe, toWire, type FileEntry } from './entry.ts';
import { assertDirectory } from './dir.ts';
import { fsError } from './errors.ts';
import type { GitStatusMap } from './git/status-map.ts';
import { IgnoreChain } from './ignore-chain.ts';
import { mapLimit } from './pool.ts';
import { compileGlob } from '../lib/glob.ts';
import { validationError } from '../../protocol/errors.ts';

export type ListSort = 'type_first' | 'name_asc' | 'name_desc' | 'mtime_desc' | 'size_desc';

export interface ListOptions {
  depth: number;
  limit: number;
  show_hidden: boolean;
  follow_gitignore: boolean;
  exclude_globs: string[];
  sort: ListSort;
}

/** A confined directory to list: absolute path, wire path, and the allowed root holding it. */
export interface ListTarget {
  abs: string;
  wire: string;
  root: string;
}

export interface ListResult {
  items: FileEntry[];
  truncated: boolean;
  children_by_path?: Record<string, FileEntry[]>;
}

interface Kid {
  name: string;
  abs: string;
  wire: string;
  isDir: boolean;
  /** Ignore rules in effect in the kid's parent. */
  chain: IgnoreChain | null;
  stats?: Stats;
}

interface Expanded {
  chain: IgnoreChain | null;
  /** Visible children, unsorted; null when the directory cannot be read. */
  kids: Kid[] | null;
  error?: unknown;
}

const IO_CONCURRENCY = 64;
const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
const byName = (a: Kid, b: Kid) => collator.compare(a.name, b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const SORTS: Record<ListSort, (a: Kid, b: Kid) => number> = {
  type_first: (a, b) => Number(b.isDir) - Number(a.isDir) || byName(a, b),
  name_asc: byName,
  name_desc: (a, b) => byName(b, a),
  mtime_desc: (a, b) => b.stats!.mtimeMs - a.stats!.mtimeMs || byName(a, b),
  size_desc: (a, b) => sizeOf(b) - sizeOf(a) || byName(a, b),
};

/** `dir` + separator + `name`; path.join's normalisation costs more than the rest of a listing's per-entry work. */
export function joinName(dir: string, name: string): string {
  return dir.endsWith(path.sep) ? dir + name : dir + path.sep + name;
}

/** `abs` relative to `base` when it lies strictly below it, by string prefix (both built from the same root). */
export function relativeTo(base: string, abs: string): string | undefined {
  const prefix = base.endsWith(path.sep) ? base : base + path.sep;
  return abs.startsWith(prefix) ? abs.slice(prefix.length) : undefined;
}

/** Directories and symlinks sort after every file by size. */
function sizeOf(k: Kid): number {
  return k.stats!.isFile() ? k.stats!.size : -1;
}

/** Globs with a `/` match the root-relative path; the others match the base name. */
function excludeMatcher(globs: string[]): ((rel: string) => boolean) | null {
  if (!globs.length) return null;
  const full = globs.filter((g) => g.includes('/'));
  const base = globs.filter((g) => !g.includes('/'));
  // Client globs: matched in linear time (src/lib/glob.ts), never by a backtracking regular expression.
  let tests: Array<(p: string) => boolean>;
  try {
    tests = [...full.map((g) => compileGlob(g)), ...base.map((g) => compileGlob(g, { basename: true }))];
  } catch (err) {
    throw validationError([{ field: 'exclude_globs', message: `invalid glob: ${(err as Error).message}` }]);
  }
  return (rel) => tests.some((t) => t(rel));
}

/** One listing: reads each directory once and describes only the entries it returns. */
export class Walk {
  private readonly expanded = new Map<string, Promise<Expanded>>();
  private readonly exclude: ((rel: string) => boolean) | null;

  constructor(private readonly target: ListTarget, private readonly opts: ListOptions, private readonly git: GitStatusMap | null) {
    this.exclude = excludeMatcher(opts.exclude_globs);
  }

  /** `/`-separated path of `abs` (a path built by joining names onto the target) relative to the allowed root. */
  private rootRel(abs: string): string {
    return toWire(relativeTo(this.target.root, abs) ?? path.relative(this.target.root, abs)) || '.';
  }

  private visible(name: string, abs: string, isDir: boolean, ignored: ((name: string, isDir: boolean) => boolean) | undefined): boolean {
    if (!this.opts.show_hidden && name.startsWith('.')) return false;
    if (this.opts.follow_gitignore && name === '.git') return false;
    if (this.exclude?.(this.rootRel(abs))) return false;
    return !ignored?.(name, isDir);
  }

  /** Visible children of a directory (cached); `chain` is the parent's rules (the root's own for the target). */
  expand(abs: string, wire: string, chain: IgnoreChain | null, isTarget = false): Promise<Expanded> {
    let hit = this.expanded.get(abs);
    if (!hit) {
      hit = this.read(abs, wire, chain, isTarget);
      this.expanded.set(abs, hit);
    }
    return hit;
  }

  private async read(abs: string, wire: string, parentChain: IgnoreChain | null, isTarget: boolean): Promise<Expanded> {
    let dirents;
    try {
      dirents = await readdir(abs, { withFileTypes: true });
    } catch (error) {
      return { chain: parentChain, kids: null, error };
    }
    const hasIgnore = dirents.some((d) => d.name === '.gitignore');
    const chain = parentChain && !isTarget ? await parentChain.child(abs, hasIgnore) : parentChain;
    const ignored = chain?.entryFilter(abs);
    const kids: Kid[] = [];
    for (const d of dirents) {
      const kidAbs = joinName(abs, d.name);
      const isDir = d.isDirectory();
      if (this.visible(d.name, kidAbs, isDir, ignored)) kids.push({ name: d.name, abs: kidAbs, wire: childPath(wire, d.name), isDir, chain });
    }
    return { chain, kids };
  }

  /** Sorted copy; the mtime and size sorts lstat every child first (entries gone meanwhile are dropped). */
  async sort(kids: Kid[]): Promise<Kid[]> {
    const sort = this.opts.sort;
    let list = kids;
    if (sort === 'mtime_desc' || sort === 'size_desc') {
      await mapLimit(list, IO_CONCURRENCY, async (k) => {
        k.stats ??= await lstat(k.abs).catch(() => undefined);
      });
      list = list.filter((k) => k.stats);
    }
    return [...list].sort(SORTS[sort]);
  }

  /** The entry of a child; undefined when it vanished since the directory was read. */
  async entry(k: Kid): Promise<FileEntry | undefined> {
    let e: FileEntry;
    try {
      e = await describe(k.abs, k.wire, { sniff: false, stats: k.stats });
    } catch {
      return undefined;
    }
    if (this.git) e.git_status = this.git.statusOf(this.rootRel(k.abs), e.kind === 'directory');
    if (e.kind === 'directory') {
      const ex = await this.expand(k.abs, k.wire, k.chain);
      if (ex.kids) e.child_count = ex.kids.length;
    }
    return e;
  }
}

/**
 * fs:list. Breadth first: the target's children fill `items`, then each
 * listed directory's children (in listing order, level by level, down to
 * `depth`) fill `children_by_path`, until `limit` entries in all have been
 * returned; whatever is cut sets `truncated` (a directory whose turn came after
 * the limit has no key). Symlinked directories are never descended.
 * `child_count` counts the children the same filters leave visible.
 */
export async function listTree(target: ListTarget, opts: ListOptions, git: GitStatusMap | null): Promise<ListResult> {
  await assertDirectory(target.abs, target.wire);
  const rootChain = opts.follow_gitignore ? await IgnoreChain.forDir(target.root, target.abs) : null;
  const walk = new Walk(target, opts, git);
  let budget = opts.limit;
  let truncated = false;
  let items: FileEntry[] = [];
  const children: Record<string, FileEntry[]> = {};
  let parents = [{ abs: target.abs, wire: target.wire, chain: rootChain, isTarget: true }];
  for (let level = 1; level <= opts.depth && parents.length; level++) {
    const taken: { wire: string; kids: Kid[] }[] = [];
    for (const p of parents) {
      const ex = await walk.expand(p.abs, p.wire, p.chain, p.isTarget);
      // An unreadable target is an error (40411); an unreadable sub-directory just has no listing.
      if (!ex.kids && p.isTarget) fsError(ex.error, target.wire);
      if (!ex.kids) continue;
      if (budget === 0 && ex.kids.length) {
        truncated = true;
        continue;
      }
      const sorted = await walk.sort(ex.kids);
      const take = sorted.slice(0, budget);
      if (take.length < sorted.length) truncated = true;
      budget -= take.length;
      taken.push({ wire: p.wire, kids: take });
    }
    const flat = await mapLimit(taken.flatMap((t) => t.kids), IO_CONCURRENCY, (k) => walk.entry(k));
    const next: typeof parents = [];
    let at = 0;
    for (const t of taken) {
      const list = flat.slice(at, (at += t.kids.length)).filter((e): e is FileEntry => e !== undefined);
      if (level === 1) items = list;
      else children[t.wire] = list;
      for (const k of t.kids) if (k.isDir) next.push({ abs: k.abs, wire: k.wire, chain: k.chain, isTarget: false });
    }
    parents = next;
  }
  return opts.depth > 1 ? { items, truncated, children_by_path: children } : { items, truncated };
}

/** Visible children of one directory under `opts` filters (child_count of fs:stat); undefined when unreadable. */
export async function countChildren(target: ListTarget, opts: ListOptions): Promise<number | undefined> {
  const chain = opts.follow_gitignore ? await IgnoreChain.forDir(target.root, target.abs) : null;
  const ex = await new Walk(target, opts, null).expand(target.abs, target.wire, chain, true);
  return ex.kids?.length;
}
