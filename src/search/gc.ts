import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

/**
 * One full garbage collection, when a search index build is done: the build leaves a large heap of dead
 * events (server) and outgrown buffers (index) that V8 would otherwise keep for a long time, since nothing
 * allocates much afterwards. `gc` is reached through a fresh context once `--expose-gc` is set at run time.
 */
export function collectGarbage(): void {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  // Compacting: the build leaves old-space pages sparsely used; a plain full GC keeps them (V8 then holds ~15 MB
  // more heap than a start from the snapshot). The flag is read at each GC; off again right after.
  setFlagsFromString('--compact-on-every-full-gc');
  try {
    collect();
  } finally {
    setFlagsFromString('--no-compact-on-every-full-gc');
  }
}
