import test from 'ava';
import { connectClient, sameAsRest } from '../contract/transcript-client.ts';
import { prompt, startEngine, turnEnded } from '../helpers/engine.ts';
import { ended, held, live, reply, turnIds } from './live-trim-helpers.ts';
import { until } from '../helpers/wait.ts';

// The production ratio: the fold keeps more turns than the newest page (20), so a reset snapshot and the newest page
// never need a restore (projections/transcript/live/entry.ts LIVE_TURNS). 21 kept here, trimmed at 32 (slack 11).
process.env.SVC_CODE_LIVE_TURNS = '21';
// Turns a read put back leave as it ends (30 s later by default; test/ws/live-trim-hold.test.ts).
process.env.SVC_CODE_LIVE_RETRIM_MS = '0';


test('keep > page size: a subscribe (reset) and the newest page are served without a restore, equal to a full fold', async (t) => {
  const env = await startEngine(t);
  await live(env).ensure(env.sid);
  env.llm.setScript(...Array.from({ length: 33 }, (_, i) => reply(`answer ${i}`)));
  for (let i = 0; i < 33; i++) {
    const before = ended(env);
    t.is((await prompt(env, `question ${i}`)).code, 0);
    await turnEnded(env, before + 1);
  }
  await until(async () => !(await env.s.get(`/api/v1/sessions/${env.sid}/status`)).data.busy || undefined, 30_000);
  await until(() => (held(env)?.trimmed ?? 0) > 0, 30_000);
  t.true(held(env)!.turns >= 21, JSON.stringify(held(env)));
  const restores = live(env).stats().restores;
  // A subscribe without transcript_since gets a reset: the newest page, from the turns held.
  const ws = await env.s.ws();
  t.teardown(() => ws.close());
  t.is((await ws.request('subscribe_v2', { session_id: env.sid, transcript: { main: 'delta' } })).code, 0);
  const reset = await ws.waitFor((f: any) => f.type === 'transcript.reset' && f.payload.agent_id === 'main', 30_000);
  t.true(reset.payload.has_more_older);
  t.deepEqual(turnIds(reset.payload.snapshot), Array.from({ length: 20 }, (_, i) => `t${13 + i}`));
  const newest = await env.s.get(`/api/v1/sessions/${env.sid}/transcript?agent_id=main`);
  t.is(newest.code, 0);
  t.deepEqual(turnIds(newest.data), Array.from({ length: 20 }, (_, i) => `t${13 + i}`));
  t.true(newest.data.has_more);
  t.is(newest.data.meta.turns, 33);
  t.is(live(env).stats().restores, restores, 'no restore for the reset nor the newest page');
  t.deepEqual(reset.payload.snapshot.items, newest.data.items);
  const c = await connectClient(env.s, env.sid);
  t.teardown(() => c.ws.close());
  // The client store fed by the reset and the ops equals GET /transcript (page_size=100: restores, then trims again).
  await sameAsRest(t, c, env.s, env.sid, 'reset from the trimmed fold');
  await until(() => (held(env)?.trimmed ?? 0) > 0, 30_000);
});
