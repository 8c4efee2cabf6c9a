import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** A fresh temp directory to use as a project root. */
export function tempDir(prefix = 'svc-code-ws-'): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}
