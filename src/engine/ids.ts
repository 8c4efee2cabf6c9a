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
