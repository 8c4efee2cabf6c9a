import { statSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../lib/logger.ts';

interface DirWatch {
  watcher: FSWatcher;
  /** Entry name in the directory -> the watched files it is (or leads to). */
  names: Map<string, string[]>;
}

const isDir = (dir: string) => statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true;

/**
 * Watches a set of files, each through its directory, so atomic replaces (rename over the file,
 * as editors and our own writers do) keep being seen. A file whose directory does not exist yet
 * (`<root>/.svc-code/mcp.json`) is watched through its nearest existing ancestor until the
 * directory appears. Bursts are debounced per file.
 */
export class FilesWatcher {
  private files: string[] = [];
  private readonly dirs = new Map<string, DirWatch>();
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly onChange: (file: string) => void,
    private readonly log: Logger,
    private readonly debounceMs = 50,
  ) {}

  /** The files watched (sorted). */
  get watched(): string[] {
    return [...this.files];
  }

  /** Watches exactly `files` from now on. */
  set(files: string[]): void {
    this.files = [...new Set(files.map((f) => path.resolve(f)))].sort();
    this.arm();
  }

  private arm(): void {
    const want = new Map<string, Map<string, string[]>>();
    for (const file of this.files) {
      let dir = path.dirname(file);
      let name = path.basename(file);
      while (!isDir(dir) && path.dirname(dir) !== dir) {
        name = path.basename(dir);
        dir = path.dirname(dir);
      }
      const names = want.get(dir) ?? new Map<string, string[]>();
      names.set(name, [...(names.get(name) ?? []), file]);
      want.set(dir, names);
    }
    for (const [dir, w] of this.dirs) {
      if (!want.has(dir)) {
        w.watcher.close();
        this.dirs.delete(dir);
      }
    }
    for (const [dir, names] of want) {
      const current = this.dirs.get(dir);
      if (current) current.names = names;
      else this.open(dir, names);
    }
  }

  private open(dir: string, names: Map<string, string[]>): void {
    try {
      const watcher = watch(dir, { persistent: false }, (_event, changed) => this.seen(dir, changed ?? undefined));
      watcher.on('error', (err) => {
        this.log.warn({ dir, err: err.message }, 'a config file watcher failed; watching again');
        this.dirs.get(dir)?.watcher.close();
        this.dirs.delete(dir);
        this.arm();
      });
      this.dirs.set(dir, { watcher, names });
    } catch (err) {
      this.log.warn({ dir, err: (err as Error).message }, 'cannot watch a config directory; its edits apply after a restart');
    }
  }

  private seen(dir: string, name: string | undefined): void {
    const w = this.dirs.get(dir);
    if (!w) return;
    // No name (some platforms): anything in the directory may have changed.
    const files = name === undefined ? [...w.names.values()].flat() : w.names.get(name);
    if (!files?.length) return;
    // A missing directory on the way appeared (or went): watch from where the path now ends.
    if (files.some((f) => path.dirname(f) !== dir)) this.arm();
    for (const f of files) this.schedule(f);
  }

  private schedule(file: string): void {
    clearTimeout(this.timers.get(file));
    this.timers.set(file, setTimeout(() => {
      this.timers.delete(file);
      this.onChange(file);
    }, this.debounceMs));
  }

  stop(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    for (const w of this.dirs.values()) w.watcher.close();
    this.dirs.clear();
    this.files = [];
  }
}
