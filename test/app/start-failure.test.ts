import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { listSlotDirs } from '../../journal/slots.ts';
import { startTestServer, tempHome } from '../helpers/server.ts';

// A start that fails after the journal opened (here the engine phase: the uploads folder cannot be made) closes
// what it opened: the next start in the same process gets the same journal slot back (not a second one beside a
// slot still locked by the failed start).

test('a start that fails after the journal opened releases its journal slot', async (t) => {
  t.timeout(60_000);
  const home = await tempHome();
  await writeFile(path.join(home, 'uploads'), 'a file where the uploads folder goes');
  await t.throwsAsync(startTestServer({ home, keepHome: true }));
  const afterFailure = await listSlotDirs(home);
  t.is(afterFailure.length, 1);
  await rm(path.join(home, 'uploads'));
  const s = await startTestServer({ home });
  t.teardown(() => s.stop());
  t.deepEqual(await listSlotDirs(home), afterFailure, 'the same slot, taken again');
  t.is((await s.post('/api/v1/sessions', { metadata: { cwd: home } })).code, 0);
});
