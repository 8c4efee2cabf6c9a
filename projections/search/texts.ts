/**
 * Where the search index keeps its document texts: UTF-8 bytes end to end, each document's at an offset the
 * index remembers. In memory for a throwaway index (a live session's search); in a file for the daemon's index
 * (src/search/file-texts.ts), so the texts, the bulk of the index, are not in the process's memory.
 */
export interface TextStore {
  /** Bytes stored. */
  readonly length: number;
  /** Appends `text`; returns its offset. */
  append(text: string): number;
  read(at: number, end: number): string;
  /**
   * The bytes [lo, lo + n) as a buffer valid until the next call (a literal scan walks the store in chunks
   * of at most CHUNK bytes).
   */
  view(lo: number, n: number): Buffer;
}

/** Bytes a literal scan reads at a time. */
export const CHUNK = 4 << 20;

export class MemoryTexts implements TextStore {
  private buf = Buffer.allocUnsafe(1 << 12);
  length = 0;

  append(text: string): number {
    const need = Buffer.byteLength(text, 'utf8');
    if (this.length + need > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(this.length + need, Math.ceil(this.buf.length * 1.5)));
      this.buf.copy(next, 0, 0, this.length);
      this.buf = next;
    }
    const at = this.length;
    this.length += this.buf.write(text, at, 'utf8');
    return at;
  }

  read(at: number, end: number): string {
    return this.buf.toString('utf8', at, end);
  }

  view(lo: number, n: number): Buffer {
    return this.buf.subarray(lo, lo + n);
  }
}

/**
 * Every start offset of `needle` in the store, last first, one chunk at a time. `visit(at)` answers the
 * largest start offset still of interest (below `at`), or -1 to stop; `chunkDone()` runs between chunks and
 * stops the walk when it answers true.
 */
export function scanBackwards(store: TextStore, needle: Buffer, visit: (at: number) => number, chunkDone: () => boolean): void {
  const len = needle.length;
  let from = store.length - len;
  while (from >= 0) {
    const lo = Math.max(0, from + len - CHUNK);
    const view = store.view(lo, from + len - lo);
    while (from >= lo) {
      const i = view.lastIndexOf(needle, from - lo);
      if (i < 0) break;
      from = visit(lo + i);
      if (from < 0) return;
    }
    from = Math.min(from, lo - 1);
    if (from >= 0 && chunkDone()) return;
  }
}
