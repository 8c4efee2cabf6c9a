/**
 * Merges changes made within a short window into one flush carrying the union
 * of their fields (`event.config.changed` is one event per burst).
 */
export class ChangeBatcher {
  private readonly pending = new Set<string>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly windowMs: number,
    private readonly flush: (fields: string[]) => Promise<void>,
  ) {}

  add(fields: string[]): void {
    for (const f of fields) this.pending.add(f);
    if (!this.pending.size || this.timer) return;
    this.timer = setTimeout(() => void this.run(), this.windowMs);
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    const fields = [...this.pending];
    this.pending.clear();
    if (fields.length) await this.flush(fields);
  }

  /** Flushes what is pending now (at shutdown, so no change goes unannounced). */
  async close(): Promise<void> {
    if (!this.timer) return;
    clearTimeout(this.timer);
    await this.run();
  }
}
