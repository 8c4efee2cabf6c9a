/**
 * An array kept sorted by a string key (ties broken by id), with O(log n)
 * lookup of a member's position. Insert/remove are a binary search plus a splice.
 */
export class SortedList<T extends { id: string }> {
  private items: T[] = [];
  constructor(private readonly keyOf: (item: T) => string) {}

  get size(): number {
    return this.items.length;
  }

  clear(): void {
    this.items = [];
  }

  private compare(a: T, key: string, id: string): number {
    const ka = this.keyOf(a);
    if (ka !== key) return ka < key ? -1 : 1;
    return a.id === id ? 0 : a.id < id ? -1 : 1;
  }

  /** Index of the first element >= (key, id). */
  private lowerBound(key: string, id: string): number {
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(this.items[mid], key, id) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  insert(item: T): void {
    this.items.splice(this.lowerBound(this.keyOf(item), item.id), 0, item);
  }

  /** Removes `item`, located by its key as it was when inserted. */
  remove(item: T, key = this.keyOf(item)): void {
    const i = this.lowerBound(key, item.id);
    if (i < this.items.length && this.items[i].id === item.id) this.items.splice(i, 1);
  }

  indexOf(item: T): number {
    const i = this.lowerBound(this.keyOf(item), item.id);
    return i < this.items.length && this.items[i].id === item.id ? i : -1;
  }

  at(i: number): T | undefined {
    return this.items[i];
  }

  /** Iterates from index `start` in the given direction. */
  *walk(direction: 'asc' | 'desc', start?: number): Generator<T> {
    if (direction === 'asc') {
      for (let i = start ?? 0; i < this.items.length; i++) yield this.items[i];
    } else {
      for (let i = start ?? this.items.length - 1; i >= 0; i--) yield this.items[i];
    }
  }
}
