import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { ROOT, startScript } from '../helpers/built.ts';

// `npm start` and the installed `svc-code` bin run the daemon with the same node flags
// (the young generation's size and the old generation's growth, docs/benchmarks.md "Memory after 10,000 creates").
test('the bin runs node with the flags of the start script', (t) => {
  const { flags } = startScript();
  t.true(flags.includes('--max-semi-space-size=8'), `start script flags: ${flags.join(' ')}`);
  t.true(flags.includes('--heap-growing-percent=50'), `start script flags: ${flags.join(' ')}`);
  const shebang = readFileSync(path.join(ROOT, 'bin/svc-code.js'), 'utf8').split('\n')[0]!;
  t.is(shebang, `#!/usr/bin/env -S node ${flags.join(' ')}`);
});
