import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';

interface Layer {
  /** Absolute directory the rules are relative to, and the same with a trailing separator. */
  dir: string;
  prefix: string;
  ig: Ignore;
  /** No pattern holds a `/` (but a trailing one): a verdict depends on the base name alone. */
  basenameOnly: boolean;
  /** Verdicts by base name (`name/` for directories), for basename-only layers. */
  byName: Map<string, IgnoreVerdict>;
}

interface IgnoreVerdict {
  ignored: boolean;
  unignored: boolean;
}

async function readRules(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return null;
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

/** Nearest directory at or above `dir` that holds `.git`, or null. */
async function repoRoot(dir: string): Promise<string | null> {
  for (let cur = dir; ; cur = path.dirname(cur)) {
    if (await exists(path.join(cur, '.git'))) return cur;
    if (path.dirname(cur) === cur) return null;
  }
}

function isBasenameOnly(rules: string): boolean {
  return rules.split(/\r?\n/).every((line) => {
    const l = line.trim();
    if (!l || l.startsWith('#')) return true;
    return !(l.startsWith('!') ? l.slice(1) : l).replace(/\/$/, '').includes('/');
  });
}

function layer(dir: string, rules: string): Layer {
  return {
    dir, prefix: dir.endsWith(path.sep) ? dir : dir + path.sep, ig: ignore().add(rules),
    basenameOnly: isBasenameOnly(rules), byName: new Map(),
  };
}

function posix(p: string): string {
  return path.sep === '/' ? p : p.split(path.sep).join('/');
}

/**
 * The `.gitignore` rules that apply inside one directory: those of every
 * directory from the repository top level (or the workspace root outside a
 * repository) down to it, plus `.git/info/exclude`. Deeper files win, as in git.
 * Global excludes (core.excludesFile) are not consulted.
 */
export class IgnoreChain {
  private constructor(private readonly layers: Layer[]) {}

  /** The chain in effect inside `dir`, a directory at or below `allowedRoot`. */
  static async forDir(allowedRoot: string, dir: string): Promise<IgnoreChain> {
    const repo = await repoRoot(allowedRoot);
    const top = repo ?? allowedRoot;
    const layers: Layer[] = [];
    if (repo) {
      const rules = await readRules(path.join(repo, '.git', 'info', 'exclude'));
      if (rules) layers.push(layer(repo, rules));
    }
    const rel = path.relative(top, dir);
    const dirs = [top, ...(rel ? rel.split(path.sep) : []).map((_, i, parts) => path.join(top, ...parts.slice(0, i + 1)))];
    for (const d of dirs) {
      const rules = await readRules(path.join(d, '.gitignore'));
      if (rules) layers.push(layer(d, rules));
    }
    return new IgnoreChain(layers);
  }

  /** The chain inside child directory `dir`, adding its own `.gitignore` when it has one. */
  async child(dir: string, hasGitignore: boolean): Promise<IgnoreChain> {
    if (!hasGitignore) return this;
    const rules = await readRules(path.join(dir, '.gitignore'));
    return rules ? new IgnoreChain([...this.layers, layer(dir, rules)]) : this;
  }

  /**
   * A test for the entries of directory `dir` (one the chain was built for):
   * true when the entry is ignored. Inside a directory the rules ignore,
   * everything is ignored (git cannot re-include it either).
   */
  entryFilter(dir: string): (name: string, isDir: boolean) => boolean {
    const states = this.layers.map((l) => {
      const under = dir === l.dir ? '' : dir.startsWith(l.prefix) ? posix(dir.slice(l.prefix.length)) : undefined;
      return { l, under, dirIgnored: under ? l.ig.test(`${under}/`).ignored : false };
    });
    return (name, isDir) => {
      for (let i = states.length - 1; i >= 0; i--) {
        const { l, under, dirIgnored } = states[i];
        if (under === undefined) continue;
        if (dirIgnored) return true;
        const r = l.basenameOnly ? byName(l, isDir ? `${name}/` : name) : l.ig.test(`${under ? `${under}/` : ''}${name}${isDir ? '/' : ''}`);
        if (r.ignored) return true;
        if (r.unignored) return false;
      }
      return false;
    };
  }
}

function byName(l: Layer, key: string): IgnoreVerdict {
  let v = l.byName.get(key);
  if (!v) l.byName.set(key, (v = l.ig.test(key)));
  return v;
}
