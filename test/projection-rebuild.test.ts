import test from 'ava';
import { Journal } from '../journal/journal.ts';
import { claimSlots } from '../journal/slots.ts';
import { ProjectionRunner } from '../projections/runner.ts';
import { EngineEvents } from '../src/engine/events.ts';
import { addMessages, append, stepCompleted, turnEnded, turnStarted, usage } from './helpers/engine-events.ts';
import { tempDir } from './helpers/fs.ts';
import { startTestServer, tempHome, type TestServer } from './helpers/server.ts';

const READS = [
  '/api/v1/sessions?include_archive=true',
  '/api/v1/sessions?archived_only=true',
  '/api/v1/workspaces',
  '/api/v1/gui/store/length',
  '/api/v1/gui/store/getItem?key=layout',
];

async function answers(s: TestServer, ids: string[]) {
  const out: unknown[] = [];
  const perSession = ['', '/goal', '/messages', '/messages?page_size=2&before_id=m4&role=user', '/messages/m3', '/snapshot', '/status'];
  for (const url of [...READS, ...perSession.flatMap((suffix) => ids.map((id) => `/api/v1/sessions/${id}${suffix}`))]) {
    out.push((await s.get(url)).data);
  }
  return out;
}

async function populate(s: TestServer): Promise<string[]> {
  const a = await tempDir();
  const b = await tempDir();
  const ids: string[] = [];
  for (let i = 0; i < 6; i++) ids.push((await s.post('/api/v1/sessions', { metadata: { cwd: i % 2 ? a : b } })).data.id);
  await s.post(`/api/v1/sessions/${ids[0]}/profile`, { title: 'Renamed', metadata: { x: 1 }, agent_config: { goal_objective: 'g' } });
  await s.post(`/api/v1/sessions/${ids[1]}:archive`);
  await s.post(`/api/v1/sessions/${ids[2]}:fork`, { title: 'F' });
  await s.post(`/api/v1/sessions/${ids[3]}/children`, {});
  await addMessages(s, ids[0], 5);
  await append(s, ids[0], EngineEvents.turnStarted, turnStarted('turn_1', 'prompt_1'));
  await append(s, ids[0], EngineEvents.stepCompleted, stepCompleted('turn_1', 1, usage(10, 5, 2, 1), 18, 'm5'));
  await append(s, ids[0], EngineEvents.turnEnded, turnEnded('turn_1', 'prompt_1'));
  await addMessages(s, ids[0], 2, { start: 6 });
  // No turn left in flight: a restart ends it as failed (engine recovery), which is not a projection answer.
  await addMessages(s, ids[4], 3);
  await s.post('/api/v1/gui/store/setItem', { key: 'layout', value: '{"split":0.5}' });
  await s.post('/api/v1/gui/store/setItem', { key: 'tmp', value: 'x' });
  await s.post('/api/v1/gui/store/removeItem', { key: 'tmp' });
  return ids;
}

test('deleting the projection data and restarting gives identical answers', async (t) => {
  const home = await tempHome();
  const s1 = await startTestServer({ home, keepHome: true });
  const ids = await populate(s1);
  const before = await answers(s1, ids);
  await s1.stop();

  const { primary } = await claimSlots(home);
  const journal = new Journal({ db: primary.db });
  await ProjectionRunner.wipe(journal);
  t.is(await primary.db.keys({ gte: 'p!', lt: 'p!~' }).all().then((k) => k.length), 0);
  await journal.close();

  const s2 = await startTestServer({ home });
  t.teardown(() => s2.stop());
  t.deepEqual(await answers(s2, ids), before);
});

test('--rebuild-projections rebuilds from the journal alone with identical answers', async (t) => {
  const home = await tempHome();
  const s1 = await startTestServer({ home, keepHome: true });
  const ids = await populate(s1);
  const before = await answers(s1, ids);
  const s2 = await s1.restart({ rebuildProjections: true });
  t.teardown(() => s2.stop());
  t.deepEqual(await answers(s2, ids), before);
});
