import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package.json above this module (works from src/ under tsx and from dist/ when built). */
function findPackageJson(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'package.json');
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json not found');
    dir = parent;
  }
}

const pkg = JSON.parse(readFileSync(findPackageJson(), 'utf8')) as { version: string };

export const SERVER_VERSION: string = pkg.version;
