import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';

interface Layer {
  /** Absolute directory the rules are relative to, with a trailing separator. */
  prefix: string;
  ig: Ignore;
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

function layer(dir: string, rules: string): Layer {
  return { prefix: dir.endsWith(path.sep) ? dir : dir + path.sep, ig: ignore().add(rules) };
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

  ignores(abs: string, isDir: boolean): boolean {
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const layer = this.layers[i];
      const under = abs.startsWith(layer.prefix) ? abs.slice(layer.prefix.length) : undefined;
      if (!under) continue;
      const rel = posix(under);
      const r = layer.ig.test(isDir ? `${rel}/` : rel);
      if (r.ignored) return true;
      if (r.unignored) return false;
    }
    return false;
  }
}
