import { randomFillSync } from 'node:crypto';
import { monotonicFactory, type ULIDFactory } from 'ulid';

/**
 * ulid's own PRNG asks crypto for one random value per character (16 calls per id); this one
 * draws the same crypto randomness 4 KiB at a time and hands it out from the pool.
 */
const pool = new Uint32Array(1024);
let next = pool.length;

export function pooledRandom(): number {
  if (next >= pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++]! / 0x1_0000_0000;
}

/** A monotonic ULID factory (as ulid's `monotonicFactory()`) over the pooled crypto randomness. */
export function fastUlidFactory(): ULIDFactory {
  return monotonicFactory(pooledRandom);
}

/** The spec's id prefixes: `<prefix>_<ULID>`. */
export type IdPrefix =
  | 'session' | 'prompt' | 'turn' | 'msg' | 'task' | 'agent' | 'btw' | 'appr' | 'qst' | 'cmp' | 'goal'
  | 'term' | 'file' | 'media' | 'wsc' | 'srv' | 'flow';

/** The id source of everything that mints an id; passed like the clock, so tests can swap it. */
export interface Ids {
  /** `<prefix>_<ULID>`, monotonic within this source. */
  next(prefix: IdPrefix): string;
  /** A bare ULID: stream epochs, request ids, scratch directory names. */
  ulid(): string;
}

/** The production id source: one monotonic ULID factory over pooled crypto randomness. */
export function ulidIds(): Ids {
  const nextUlid = fastUlidFactory();
  return { next: (prefix) => `${prefix}_${nextUlid()}`, ulid: () => nextUlid() };
}
