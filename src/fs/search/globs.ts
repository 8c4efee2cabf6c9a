import { validationError } from '../../../protocol/errors.ts';
import { compileGlob } from '../../lib/glob.ts';

export type PathTest = (path: string) => boolean;

/**
 * Globs as ripgrep's `-g` reads them: a glob without `/` matches a basename at
 * any depth; with `/` it matches the path from the root (a leading `/` or `./`
 * is dropped). Dotfiles match like any other name. Matched in linear time
 * (src/lib/glob.ts): these globs come from clients.
 */
function compile(globs: string[], field: string): PathTest | null {
  const tests = globs
    .map((g) => g.trim())
    .filter(Boolean)
    .map((g) => {
      const anchored = g.replace(/^\.?\//, '');
      try {
        return compileGlob(anchored, { basename: !anchored.includes('/') });
      } catch (err) {
        throw validationError([{ field, message: `invalid glob ${JSON.stringify(g)}: ${(err as Error).message}` }]);
      }
    });
  if (!tests.length) return null;
  return (p) => tests.some((t) => t(p));
}

/** True when `p` or one of its ancestor directories passes `test`. */
function selfOrAncestor(test: PathTest, p: string): boolean {
  if (test(p)) return true;
  for (let i = p.indexOf('/'); i > 0; i = p.indexOf('/', i + 1)) {
    if (test(p.slice(0, i))) return true;
  }
  return false;
}

/**
 * One filter for include and exclude globs, as ripgrep applies them (so
 * fs:search and fs:grep agree): a path is kept when it matches an include
 * glob, if any are given (`src/**` keeps what is under src, `src` alone keeps
 * nothing under it), and neither it nor a directory above it matches an
 * exclude glob (excluding `node_modules` hides everything under it).
 */
export function globFilter(include: string[] = [], exclude: string[] = []): PathTest | null {
  const inc = compile(include, 'include_globs');
  const exc = compile(exclude, 'exclude_globs');
  if (!inc && !exc) return null;
  return (p) => (!inc || inc(p)) && (!exc || !selfOrAncestor(exc, p));
}
