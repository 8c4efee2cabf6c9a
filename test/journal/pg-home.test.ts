import test from 'ava';
import { listSlotDirs } from '../../journal/slots.ts';
import { freshDatabase } from '../helpers/pg.ts';
import { newSession, startTestServer, tempHome } from '../helpers/server.ts';

// A home that has LevelDB journal slots, served with the PostgreSQL journal: the slots stay as they are.

test('a home with leftover LevelDB slots served on PostgreSQL: the slots are neither adopted nor shown, and stay usable', async (t) => {
  t.timeout(120_000);
  const home = await tempHome();
  const level = await startTestServer({ home, keepHome: true });
  const sid = await newSession(level);
  await level.stop();
  const slots = await listSlotDirs(home);
  t.true(slots.length > 0);

  // A reconcile pass that adopted the stopped daemon's slot would import its session into the database.
  const pg = await startTestServer({ home, keepHome: true, options: { journalUrl: await freshDatabase() } });
  t.is((await pg.get(`/api/v1/sessions/${sid}`)).code, 40401);
  t.deepEqual((await pg.get('/api/v1/sessions')).data.items, []);
  for (let i = 0; i < 3; i++) await pg.instances.reconcile();
  t.deepEqual((await pg.get('/api/v1/sessions')).data.items, []);
  await pg.stop();

  t.deepEqual(await listSlotDirs(home), slots);
  const again = await startTestServer({ home });
  t.teardown(() => again.stop());
  t.is((await again.get(`/api/v1/sessions/${sid}`)).data.id, sid);
});
