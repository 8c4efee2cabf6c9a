/** Chunks are merged up to this size, so a flood of tiny writes stays a short array. */
const CHUNK_CHARS = 8 * 1024;

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Cut index at or after `i` that does not split a surrogate pair. */
function safeCut(s: string, i: number): number {
  return i < s.length && isLowSurrogate(s.charCodeAt(i)) ? i + 1 : i;
}

/**
 * The last `capacity` characters of a terminal's output, addressed by
 * cumulative offsets: offset 0 is the first character the PTY ever produced,
 * so a client that saw everything up to `since` can ask for the rest.
 */
export class Scrollback {
  private chunks: string[] = [];
  private held = 0;
  private end = 0;

  constructor(private readonly capacity: number) {}

  /** Offset just past the last character written. */
  get endOffset(): number {
    return this.end;
  }

  /** Offset of the oldest character still held. */
  get startOffset(): number {
    return this.end - this.held;
  }

  write(data: string): void {
    if (!data) return;
    const last = this.chunks.length - 1;
    if (last >= 0 && this.chunks[last].length < CHUNK_CHARS) this.chunks[last] += data;
    else this.chunks.push(data);
    this.held += data.length;
    this.end += data.length;
    this.trim();
  }

  /** What is held from `since` (clamped to the held range) to the end, with its start offset. */
  from(since = 0): { offset: number; data: string } {
    const start = Math.min(Math.max(since, this.startOffset), this.end);
    let skip = start - this.startOffset;
    const parts: string[] = [];
    for (const c of this.chunks) {
      if (skip >= c.length) {
        skip -= c.length;
        continue;
      }
      parts.push(skip ? c.slice(skip) : c);
      skip = 0;
    }
    return { offset: start, data: parts.join('') };
  }

  /** Frees the text; offsets keep counting. */
  clear(): void {
    this.chunks = [];
    this.held = 0;
  }

  private trim(): void {
    let drop = 0;
    while (this.held > this.capacity) {
      const first = this.chunks[drop];
      const excess = this.held - this.capacity;
      if (first.length <= excess) {
        this.held -= first.length;
        drop++;
        continue;
      }
      const cut = safeCut(first, excess);
      this.chunks[drop] = first.slice(cut);
      this.held -= cut;
    }
    if (drop) this.chunks.splice(0, drop);
  }
}

/** Splits text into pieces of at most `max` characters without splitting surrogate pairs. */
export function splitText(data: string, max: number): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < data.length) {
    const j = Math.min(data.length, safeCut(data, i + max));
    out.push(data.slice(i, j));
    i = j;
  }
  return out;
}
