/** The search index's per-document columns: typed arrays that grow by copying without raising malloc's thresholds. */

/** The per-document columns, by name and type (a snapshot writes them in this order). */
export const COLUMN_TYPES = {
  /** Offset of the document's text in the store; its text ends where the next document's starts (or a turn id does). */
  textAt: Float64Array,
  alive: Uint8Array,
  /** 32-bit hash of the message id (undo finds a session's documents by it). */
  keys: Int32Array,
  /** Offset of the document's turn id in the store, -1 when none (documents of one turn share the bytes). */
  turnAt: Float64Array,
  turnLen: Uint8Array,
  times: Float64Array,
  docSession: Int32Array,
  docAgent: Int32Array,
  docRole: Uint8Array,
} as const;
export type ColumnName = keyof typeof COLUMN_TYPES;
export type Typed = Int32Array | Uint32Array | Float64Array | Uint8Array;
export type Columns = { [K in ColumnName]: InstanceType<(typeof COLUMN_TYPES)[K]> };

/** Arrays that grow past this many bytes are given at least ROOMY_BYTES of capacity (see `roomy`). */
const ROOMY_FROM = 1 << 20;
/** Above glibc's largest dynamic mmap threshold (32 MiB on 64-bit). */
const ROOMY_BYTES = 33 << 20;

/**
 * A typed array of at least `n` elements for an array that grows by copying. glibc serves an allocation above
 * its mmap threshold (128 KiB at start) with a mapping of its own, and raises the threshold (and the trim
 * threshold, to twice that) to the size of every such block freed, up to 32 MiB: the build's outgrown postings
 * and columns raised it to ~32 MiB, after which every thread's allocations came from malloc arenas that keep
 * up to ~64 MiB free each (docs/benchmarks.md "Session 7 — search memory"). Past ROOMY_FROM bytes the capacity
 * is at least ROOMY_BYTES, so freeing it never raises the threshold; pages past what is written are never
 * touched and cost no RSS (a fresh mapping reads as zeros).
 */
export function roomy<T extends Typed>(Type: new (n: number) => T, bytesPer: number, n: number): T {
  return new Type(n * bytesPer < ROOMY_FROM ? n : Math.max(n, Math.ceil(ROOMY_BYTES / bytesPer)));
}

/** A growable typed array (per-document columns stay compact at 500,000 documents). */
export class Column<T extends Typed> {
  constructor(public data: T, public length = 0) {}
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = roomy(this.data.constructor as new (n: number) => T, this.data.BYTES_PER_ELEMENT, Math.max(1024, Math.ceil(this.data.length * 1.5)));
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }

  trim(): void {
    if (this.data.length > this.length) this.data = this.data.slice(0, this.length) as T;
  }

  get view(): T {
    return this.data.subarray(0, this.length) as T;
  }
}

/** Every column, empty. */
export function emptyColumns(): { [K in ColumnName]: Column<Columns[K]> } {
  const cols = {} as Record<ColumnName, Column<Typed>>;
  for (const [name, T] of Object.entries(COLUMN_TYPES)) cols[name as ColumnName] = new Column(new T(1024));
  return cols as unknown as { [K in ColumnName]: Column<Columns[K]> };
}

/** Columns over a snapshot's arrays. */
export function restoredColumns(state: Columns): { [K in ColumnName]: Column<Columns[K]> } {
  const cols = {} as Record<ColumnName, Column<Typed>>;
  for (const name of Object.keys(COLUMN_TYPES) as ColumnName[]) cols[name] = new Column<Typed>(state[name], state[name].length);
  return cols as unknown as { [K in ColumnName]: Column<Columns[K]> };
}
