import test from 'ava';
import { connectClient, sameAsRest } from '../contract/transcript-client.ts';
import { startEngine } from '../helpers/engine.ts';
import { held, live, page, reply, turnIds, turns } from './live-trim-helpers.ts';
import { until } from '../helpers/wait.ts';

// Turns a read put back from the journal stay while a reader walks back page by page (one restore, not a journal
// fold per page) and leave once no read came for a while (RETRIM_IDLE_MS, projections/transcript/live/entry.ts).
process.env.SVC_CODE_LIVE_TURNS = '3';
delete process.env.SVC_CODE_LIVE_RETRIM_MS;


test('walking back page by page restores once; the turns put back leave after the idle delay', async (t) => {
  const env = await startEngine(t);
  const c = await connectClient(env.s, env.sid);
  t.teardown(() => c.ws.close());
  env.llm.setScript(...Array.from({ length: 12 }, (_, i) => reply(`answer ${i}`)));
  await turns(env, 0, 12);
  await until(() => (held(env)?.trimmed ?? 0) > 0, 30_000);
  const before = live(env).stats().restores;

  let d = await page(env, 'page_size=2');
  const seen = turnIds(d);
  while (d.has_more) {
    d = await page(env, `page_size=2&before_turn=${turnIds(d)[0]}`);
    seen.unshift(...turnIds(d));
  }
  t.deepEqual(seen, Array.from({ length: 12 }, (_, i) => `t${i}`));
  t.is(live(env).stats().restores - before, 1, 'one restore for the whole walk back');
  t.is(held(env)?.trimmed, 0, 'the turns put back are held after the walk');

  // No read for the delay: they leave again; a client fed by the ops still equals GET /transcript.
  live(env).settings.retrimMs = 100;
  await page(env, 'page_size=2');
  await until(() => (held(env)?.trimmed ?? 0) > 0, 30_000, 'trimmed again after the idle delay');
  await sameAsRest(t, c, env.s, env.sid, 'after the re-trim');
});
