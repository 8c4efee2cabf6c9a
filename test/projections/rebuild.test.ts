import test, { type ExecutionContext } from 'ava';
import { Journal } from '../../journal/journal.ts';
import { LevelStore } from '../../journal/level-store.ts';
import { claimSlots } from '../../journal/slots.ts';
import { ProjectionRunner } from '../../projections/runner.ts';
import { addMessages, append, stepCompleted, turnEnded, turnStarted, usage } from '../helpers/engine-events.ts';
import { tempDir } from '../helpers/fs.ts';
import { BACKENDS, openStore, serveOptions } from '../helpers/journal.ts';
import { recordedSession } from '../helpers/recorded-session.ts';
import { startTestServer, tempHome, type TestServer } from '../helpers/server.ts';

const READS = [
  '/api/v1/sessions?include_archive=true',
  '/api/v1/sessions?archived_only=true',
  '/api/v1/workspaces',
  '/api/v1/gui/store/length',
  '/api/v1/gui/store/getItem?key=layout',
];

const PER_SESSION = [
  '', '/goal', '/messages', '/messages?page_size=2&before_id=m4&role=user', '/messages/m3',
  // The transcript projection (lazy: folded again from the journal after the restart).
  '/transcript?agent_id=main', '/transcript?agent_id=main&page_size=1', '/transcript?agent_id=agent_sub1', '/transcript/user-messages',
  '/transcript/plan?agent_id=main', '/transcript/ops?agent_id=main&since_seq=0',
  '/snapshot', '/status',
];

/** The answers that are errors on purpose: a message id or cursor the session does not have. */
function expectedCode(url: string, ids: string[]): number {
  const has = (...which: number[]) => which.some((i) => url.includes(`/${ids[i]}/`));
  if (url.endsWith('/messages/m3')) return has(0, 4) ? 0 : 40403;
  if (url.includes('before_id=m4')) return has(0) ? 0 : 40001;
  return 0;
}

/** Every answer's code and data; each code is checked, so an error cannot stand in for a rebuilt answer. */
async function answers(t: ExecutionContext, s: TestServer, ids: string[]) {
  const out: Array<{ url: string; code: number; data: unknown }> = [];
  for (const url of [...READS, ...PER_SESSION.flatMap((suffix) => ids.map((id) => `/api/v1/sessions/${id}${suffix}`))]) {
    const { code, data } = await s.get(url);
    t.is(code, expectedCode(url, ids), url);
    // The transcript's batch counter is per fold (a restart's fresh fold starts a new range): not a projection answer.
    if (url.includes('/transcript') && data && typeof data === 'object') {
      delete (data as { seq?: number }).seq;
      delete (data as { latest_seq?: number }).latest_seq;
    }
    out.push({ url, code, data });
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
  await append(s, ids[0], 'turn.started', turnStarted('turn_1', 'prompt_1'));
  await append(s, ids[0], 'turn.step.completed', stepCompleted('turn_1', 1, usage(10, 5, 2, 1), 18, 'm5'));
  await append(s, ids[0], 'turn.ended', turnEnded('turn_1', 'prompt_1'));
  await addMessages(s, ids[0], 2, { start: 6 });
  // No turn left in flight: a restart ends it as failed (engine recovery), which is not a projection answer.
  await addMessages(s, ids[4], 3);
  // Read once first: the transcript is then kept up to date event by event, and compared with a fresh fold after the restart.
  if ((await s.get(`/api/v1/sessions/${ids[5]}/transcript?agent_id=main`)).code !== 0) throw new Error('transcript read failed');
  for (const e of recordedSession(ids[5])) await s.journal.append([e]);
  await s.post('/api/v1/gui/store/setItem', { key: 'layout', value: '{"split":0.5}' });
  await s.post('/api/v1/gui/store/setItem', { key: 'tmp', value: 'x' });
  await s.post('/api/v1/gui/store/removeItem', { key: 'tmp' });
  return ids;
}

for (const backend of BACKENDS) {
  test(`[${backend}] deleting the projection data and restarting gives identical answers`, async (t) => {
    const home = await tempHome();
    const options = await serveOptions(backend);
    const s1 = await startTestServer({ home, keepHome: true, options });
    const ids = await populate(s1);
    const before = await answers(t, s1, ids);
    const transcript = before.find((a) => a.url === `/api/v1/sessions/${ids[5]}/transcript?agent_id=main`)!.data as { items: unknown[]; agents: unknown[] };
    t.is(transcript.items.filter((i: any) => i.kind === 'turn').length, 2, 'the undone third turn is left out');
    t.is(transcript.agents.length, 2, 'main and the subagent');
    await s1.stop();

    const store = options.journalUrl ? await openStore('postgres', options.journalUrl) : new LevelStore((await claimSlots(home)).primary.db);
    const journal = new Journal({ store });
    await journal.load();
    await ProjectionRunner.wipe(journal);
    t.is((await store.entries({ gte: 'p!', lt: 'p!~' })).length, 0);
    await journal.close();

    const s2 = await startTestServer({ home, options });
    t.teardown(() => s2.stop());
    t.deepEqual(await answers(t, s2, ids), before);
  });

  test(`[${backend}] --rebuild-projections rebuilds from the journal alone with identical answers`, async (t) => {
    const home = await tempHome();
    const s1 = await startTestServer({ home, keepHome: true, options: await serveOptions(backend) });
    const ids = await populate(s1);
    const before = await answers(t, s1, ids);
    const s2 = await s1.restart({ rebuildProjections: true });
    t.teardown(() => s2.stop());
    t.deepEqual(await answers(t, s2, ids), before);
  });
}
