import { createHash } from 'node:crypto';
import path from 'node:path';

/** `wd_<slug>_<hash12>`: slug of the root's base name, 12 hex of sha256(root). */
export function workspaceIdFor(root: string): string {
  const slug = path.basename(root).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'root';
  const hash = createHash('sha256').update(root).digest('hex').slice(0, 12);
  return `wd_${slug}_${hash}`;
}
