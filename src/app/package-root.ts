import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's own directory: the first one above this module holding package.json (src/app under
 * tsx, dist/src/app when built). Files the daemon reads from its package are found from here, never
 * from the working directory. Files read beside their module (src/providers/catalog/snapshot.json) are copied
 * into dist/ by scripts/build.mjs instead.
 */
function findPackageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

export const PACKAGE_ROOT = findPackageRoot();

/** The builtin skills (`skills/<name>/SKILL.md` at the package root). */
export const BUILTIN_SKILLS_DIR = path.join(PACKAGE_ROOT, 'skills');
