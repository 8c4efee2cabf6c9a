import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../app/logger.ts';

/**
 * Watches one file through its directory, so atomic replaces (rename over the
 * file, as editors and our own writer do) keep being seen. Bursts are debounced.
 */
export class FileWatcher {
  private watcher?: FSWatcher;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly file: string,
    private readonly onChange: () => void,
    private readonly log: Logger,
    private readonly debounceMs = 50,
  ) {}

  get active(): boolean {
    return this.watcher !== undefined;
  }

  start(): void {
    if (this.watcher) return;
    const name = path.basename(this.file);
    try {
      this.watcher = watch(path.dirname(this.file), { persistent: false }, (_event, changed) => {
        if (changed === name) this.schedule();
      });
      this.watcher.on('error', (err) => {
        this.log.warn({ err: err.message }, 'config watcher failed; external edits apply after restart');
        this.stop();
      });
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'cannot watch config directory; external edits apply after restart');
    }
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.onChange(), this.debounceMs);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.watcher?.close();
    this.watcher = undefined;
  }
}
