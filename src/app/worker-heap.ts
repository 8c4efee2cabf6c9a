import { setFlagsFromString } from 'node:v8';

/**
 * Lets worker threads' `resourceLimits` size their own young generation: clears V8's `--max-semi-space-size`
 * for every isolate created from now on. Process-wide, so called once, here in the startup wiring, and only when
 * the search index runs in a worker (startServer).
 *
 * Why: the daemon runs with `--max-semi-space-size=8` (package.json's start, the bin's shebang;
 * test/smoke/node-flags.test.ts). V8 applies that flag when it configures any isolate, after the embedder's
 * resource constraints, so a worker's `resourceLimits.maxYoungGenerationSizeMb` is silently replaced by the
 * daemon's 8 MB semi-spaces (the search worker's heap grew to 25-26 MB; docs/benchmarks.md "Session 8").
 *
 * What it changes: the main thread keeps its 8 MB semi-spaces (V8 reads the flag only when an isolate is created;
 * the main one was at the start). Every isolate created later (the search worker and its replacements, and also
 * any other worker or logger transport thread) gets its `resourceLimits` or else V8's default young generation
 * instead of the daemon's 8 MB semi-spaces. Node documents flags changed after the start as undefined behaviour:
 * test/search/worker-heap.test.ts starts the daemon with the flag and checks both threads' young generations.
 */
export function releaseSemiSpaceFlagForWorkers(): void {
  setFlagsFromString('--max-semi-space-size=0');
}
