#!/usr/bin/env node
// `npm start`: builds dist/ first when the sources changed since it was built (scripts/build.mjs),
// then runs the built CLI in this same process. Checking here rather than in a prestart hook costs
// no second node start, and `npm start --ignore-scripts` cannot skip it: a stale build never runs.
import { build, staleReason } from './build.mjs';

const why = staleReason();
if (why) {
  process.stderr.write(`svc-code: building dist/ first: ${why}\n`);
  const status = build();
  if (status !== 0) process.exit(status);
}
await import('../dist/src/cli/main.js');
