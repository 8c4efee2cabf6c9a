import type { Clock } from '../../src/lib/clock.ts';

/** A clock a test moves: the system time until `set`, then the time it was set to (moved on by `advance`). */
export class TestClock implements Clock {
  private at: number | undefined;

  now(): Date {
    return new Date(this.at ?? Date.now());
  }

  set(at: Date | number | string): void {
    this.at = new Date(at).getTime();
  }

  advance(ms: number): void {
    this.at = (this.at ?? Date.now()) + ms;
  }
}
