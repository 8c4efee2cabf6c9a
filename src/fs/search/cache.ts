import { buildFileIndex, type FileIndex } from './file-index.ts';

export interface FileIndexCacheOptions {
  /** An index younger than this is served as is. */
  freshMs: number;
  /** Up to this age a stale index is still served while a rebuild runs in the background. */
  staleMs: number;
  /** Roots kept; the least recently used index goes first. */
  maxEntries: number;
  now: () => number;
}

export const DEFAULT_INDEX_CACHE: Omit<FileIndexCacheOptions, 'now'> = { freshMs: 15_000, staleMs: 5 * 60_000, maxEntries: 8 };

interface Slot {
  index?: FileIndex;
  building?: Promise<FileIndex>;
  expiry?: NodeJS.Timeout;
}

/**
 * File indexes per (root, follow_gitignore): built at most once at a time,
 * fresh for `freshMs`, then stale-while-revalidate until `staleMs` (a search
 * after a quiet spell answers at once and the next one sees the rebuild), and
 * dropped after `staleMs` without use so idle roots do not hold memory.
 */
export class FileIndexCache {
  private readonly slots = new Map<string, Slot>();

  constructor(private readonly opts: FileIndexCacheOptions) {}

  async get(root: string, followGitignore: boolean): Promise<FileIndex> {
    const key = `${followGitignore ? 1 : 0}\0${root}`;
    const slot = this.slots.get(key) ?? {};
    // Re-insert: Map order is the LRU order.
    this.slots.delete(key);
    this.slots.set(key, slot);
    this.evict();
    this.scheduleExpiry(key, slot);
    const age = slot.index ? this.opts.now() - slot.index.builtAt : Infinity;
    if (age < this.opts.freshMs) return slot.index!;
    const pending = this.rebuild(key, slot, root, followGitignore);
    if (age < this.opts.staleMs) {
      // Failures surface on the next awaited build; the stale index keeps serving meanwhile.
      pending.catch(() => undefined);
      return slot.index!;
    }
    return pending;
  }

  /** Drops every index (tests, shutdown). */
  clear(): void {
    for (const slot of this.slots.values()) clearTimeout(slot.expiry);
    this.slots.clear();
  }

  private rebuild(key: string, slot: Slot, root: string, followGitignore: boolean): Promise<FileIndex> {
    slot.building ??= buildFileIndex(root, followGitignore, this.opts.now()).then(
      (index) => {
        slot.building = undefined;
        if (this.slots.get(key) === slot) slot.index = index;
        return index;
      },
      (err) => {
        slot.building = undefined;
        throw err;
      },
    );
    return slot.building;
  }

  private scheduleExpiry(key: string, slot: Slot): void {
    clearTimeout(slot.expiry);
    slot.expiry = setTimeout(() => {
      if (this.slots.get(key) === slot) this.slots.delete(key);
    }, this.opts.staleMs);
    slot.expiry.unref();
  }

  private evict(): void {
    while (this.slots.size > this.opts.maxEntries) {
      const [oldest, slot] = this.slots.entries().next().value!;
      clearTimeout(slot.expiry);
      this.slots.delete(oldest);
    }
  }
}
