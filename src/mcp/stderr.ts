/**
 * What a stdio server wrote to stderr, kept for its `last_error` and test output: the first characters (where Node
 * prints "Error: Cannot find module ...", above its stack) and the last ones (where Python prints its exception,
 * below its traceback). An excerpt longer than `max` shows both ends around an ellipsis.
 */
export class StderrExcerpt {
  private head = '';
  private tail = '';
  private total = 0;

  constructor(private readonly max = 500) {}

  push(chunk: string): void {
    const half = Math.floor(this.max / 2);
    if (this.head.length < half) this.head += chunk.slice(0, half - this.head.length);
    this.tail = (this.tail + chunk).slice(-this.max);
    this.total += chunk.length;
  }

  clear(): void {
    this.head = '';
    this.tail = '';
    this.total = 0;
  }

  /** The whole output when it fits in `max` characters, else its start and its end; trimmed. */
  text(): string {
    if (this.total <= this.max) return this.tail.trim();
    const half = Math.floor(this.max / 2);
    return `${this.head.trim()} … ${this.tail.slice(-half).trim()}`;
  }
}
