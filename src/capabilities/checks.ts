import { accessSync, constants, existsSync } from 'node:fs';
import path from 'node:path';

/** The first of `names` found as an executable on PATH, or undefined. */
export function onPath(names: string[], envPath = process.env.PATH ?? ''): string | undefined {
  const exts = process.platform === 'win32' ? ['.exe', '.cmd', ''] : [''];
  for (const name of names) {
    for (const dir of envPath.split(path.delimiter).filter(Boolean)) {
      for (const ext of exts) {
        const file = path.join(dir, name + ext);
        try {
          accessSync(file, constants.X_OK);
          return file;
        } catch {
          /* next */
        }
      }
    }
  }
  return undefined;
}

export const exists = (p: string) => existsSync(p);

/**
 * The platform capabilities are checked for. `SVC_CODE_CAPABILITY_PLATFORM` overrides it: a test
 * setting, so the unsupported path (40925) can be exercised on a supported machine.
 */
export function platform(): string {
  return process.env.SVC_CODE_CAPABILITY_PLATFORM || process.platform;
}
