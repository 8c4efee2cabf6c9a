#!/usr/bin/env -S node --max-semi-space-size=8 --heap-growing-percent=50
// The node flags are those of package.json's start script (docs/benchmarks.md, "Memory after 10,000 creates").
// The compiled CLI (npm ci runs `npm run build` through the prepare script).
await import('../dist/src/cli/main.js');
