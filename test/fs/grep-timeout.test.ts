import test from 'ava';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { scratchDir } from '../helpers/fs.ts';
import { serverFor } from '../helpers/server.ts';

// Its own file (own process): the deadline is read from the environment when the server starts.
test('a grep past SVC_CODE_GREP_TIMEOUT_MS is 41305', async (t) => {
  process.env.SVC_CODE_GREP_TIMEOUT_MS = '1';
  const s = await serverFor(t);
  const root = await scratchDir(t, 'svc-code-grep-big-');
  // 4,000 files of 4 KiB: far more than ripgrep can get through in 1 ms, counting its own start-up.
  const body = 'lorem ipsum dolor sit amet\n'.repeat(150);
  for (let d = 0; d < 20; d++) {
    await mkdir(path.join(root, `d${d}`));
    await Promise.all(Array.from({ length: 200 }, (_, f) => writeFile(path.join(root, `d${d}`, `f${f}.txt`), body)));
  }
  const created = await s.post('/api/v1/sessions', { metadata: { cwd: root } });
  const r = await s.post(`/api/v1/sessions/${created.data.id}/fs:grep`, { pattern: 'needle-not-present' });
  t.is(r.code, 41305);
  t.is(r.details.timeout_ms, 1);
});
