import { existsSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUILTIN_SKILLS_DIR } from '../app/package-root.ts';
import type { ResolvedConfig } from '../config/resolve.ts';
import { enabledPlugins } from '../plugins/layout.ts';
import type { SkillSource } from './types.ts';

/** A directory whose subdirectories are skills, with the source they count as. */
export interface SkillRoot {
  dir: string;
  source: SkillSource;
}

/**
 * Project skill folders under a project directory, most specific brand first:
 * ours (Part B's project-local `.svc-code/`), then other agents' conventions.
 */
export const PROJECT_BRAND_DIRS = ['.svc-code/skills', '.claude/skills', '.codex/skills'];

/** The builtin skills, when the package ships any. */
const BUILTIN_ROOT = existsSync(BUILTIN_SKILLS_DIR) ? BUILTIN_SKILLS_DIR : undefined;

const isDir = (d: string) => {
  try {
    return statSync(d, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
};

/** `~/x` expands to the OS home; relative entries resolve against the data directory. */
function expand(dir: string, home: string): string {
  if (dir === '~' || dir.startsWith('~/')) return path.join(os.homedir(), dir.slice(1));
  return path.resolve(home, dir);
}

/**
 * With merge_all_available_skills every existing brand folder of a project
 * directory counts (earlier brands win on a name clash); without it only the
 * first existing one does (docs/skills.md).
 */
function projectRoots(dirs: string[], mergeAll: boolean): SkillRoot[] {
  const out: SkillRoot[] = [];
  for (const base of dirs) {
    const found = PROJECT_BRAND_DIRS.map((b) => path.join(base, b)).filter(isDir);
    for (const dir of mergeAll ? found : found.slice(0, 1)) out.push({ dir, source: 'project' });
  }
  return out;
}

/** The `skills/` folder of each enabled plugin, in plugin id order (docs/plugins.md). */
export function pluginRoots(home: string): SkillRoot[] {
  return enabledPlugins(home).map((p) => ({ dir: path.join(p.dir, 'skills'), source: 'plugin' as const }));
}

/**
 * Every skill root in precedence order, highest first: project (workspace root,
 * then its additional dirs) > user (`<home>/skills`) > extra (extra_skill_dirs,
 * in order) > plugin > builtin.
 */
export function skillRoots(opts: { home: string; config: ResolvedConfig; projectDirs: string[] }): SkillRoot[] {
  const { home, config } = opts;
  return [
    ...projectRoots(opts.projectDirs, config.merge_all_available_skills),
    { dir: path.join(home, 'skills'), source: 'user' },
    ...config.extra_skill_dirs.map((d) => ({ dir: expand(d, home), source: 'extra' as const })),
    ...pluginRoots(home),
    ...(config.builtin_product_skills && BUILTIN_ROOT ? [{ dir: BUILTIN_ROOT, source: 'builtin' as const }] : []),
  ];
}
