/**
 * The best `k` of a stream of (score, path) by score descending then path
 * ascending: a binary min-heap whose root is the worst kept entry, so a scan
 * of n candidates costs O(n log k) instead of sorting all n.
 */
export class TopK<T extends { score: number; path: string }> {
  private readonly heap: T[] = [];

  constructor(private readonly k: number) {}

  /** Would `score`/`path` make it in? Lets callers skip building an entry. */
  wouldKeep(score: number, path: string): boolean {
    if (this.heap.length < this.k) return true;
    return better(score, path, this.heap[0]);
  }

  /** Score of the worst kept entry once full (a candidate must reach it), else -1. */
  floor(): number {
    return this.heap.length < this.k ? -1 : this.heap[0].score;
  }

  offer(item: T): void {
    const h = this.heap;
    if (h.length < this.k) {
      h.push(item);
      this.up(h.length - 1);
    } else if (better(item.score, item.path, h[0])) {
      h[0] = item;
      this.down(0);
    }
  }

  /** Best first. */
  sorted(): T[] {
    return [...this.heap].sort((a, b) => (better(a.score, a.path, b) ? -1 : 1));
  }

  private up(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!better(h[p].score, h[p].path, h[i])) break;
      [h[p], h[i]] = [h[i], h[p]];
      i = p;
    }
  }

  private down(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < h.length && better(h[worst].score, h[worst].path, h[l])) worst = l;
      if (r < h.length && better(h[worst].score, h[worst].path, h[r])) worst = r;
      if (worst === i) return;
      [h[worst], h[i]] = [h[i], h[worst]];
      i = worst;
    }
  }
}

function better(score: number, path: string, other: { score: number; path: string }): boolean {
  return score > other.score || (score === other.score && path < other.path);
}
