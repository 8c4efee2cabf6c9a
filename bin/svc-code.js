#!/usr/bin/env node
// The compiled CLI (npm ci runs `npm run build` through the prepare script).
await import('../dist/src/cli/main.js');
