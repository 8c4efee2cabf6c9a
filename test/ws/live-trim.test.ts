import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { connectClient, restTranscript, sameAsRest, toolCall, toolFrameOf, transcriptIdle } from '../contract/transcript-client.ts';
import { startEngine, YOLO } from '../helpers/engine.ts';
import { until } from '../helpers/wait.ts';
import { held, page, reply, turnIds, turns } from './live-trim-helpers.ts';

// A live fold keeps the newest turns of an agent (SVC_CODE_LIVE_TURNS, 40 by default) and folds the older ones back
// from the journal when a page or an event needs them (projections/transcript/records-trim.ts). Pages, `meta`, and a
// client store fed by the ops must be what they are with every turn held.
process.env.SVC_CODE_LIVE_TURNS = '3';
// Turns a read put back leave as it ends (30 s later by default; test/ws/live-trim-hold.test.ts).
process.env.SVC_CODE_LIVE_RETRIM_MS = '0';



test('pages reaching turns the live fold left out: every turn, in order, with has_more and meta as if all were held', async (t) => {
  const env = await startEngine(t);
  const c = await connectClient(env.s, env.sid);
  t.teardown(() => c.ws.close());
  env.llm.setScript(...Array.from({ length: 9 }, (_, i) => reply(`answer ${i}`)));
  await turns(env, 0, 9);
  // Trimmed at a turn end (3 kept + up to 2 of slack), before any page reads them back.
  const h = await until(() => ((held(env)?.trimmed ?? 0) > 0 ? held(env) : undefined), 30_000);
  t.true(h!.turns <= 5, JSON.stringify(h));
  await transcriptIdle(env.s, env.sid);

  // The newest page of 2 is served from the turns held.
  const newest = await page(env, 'page_size=2');
  t.deepEqual(turnIds(newest), ['t7', 't8']);
  t.true(newest.has_more);
  t.is(newest.meta.turns, 9);
  t.deepEqual(newest.meta.usage, { input_tokens: 90, output_tokens: 18, cache_read_tokens: 0, cache_creation_tokens: 0 });

  // Walking back with before_turn reaches every older turn.
  const seen: string[] = [...turnIds(newest)];
  let d = newest;
  while (d.has_more) {
    d = await page(env, `page_size=2&before_turn=${turnIds(d)[0]}`);
    seen.unshift(...turnIds(d));
  }
  t.deepEqual(seen, Array.from({ length: 9 }, (_, i) => `t${i}`));
  t.is((await page(env, 'page_size=2&after_turn=t0')).items[0].prompt, 'question 1');
  const all = await page(env, 'page_size=100');
  t.deepEqual(turnIds(all), seen);
  t.is(all.items[0].steps[0].frames[0].text, 'answer 0');

  // The client store, fed by the ops all along, equals GET /transcript.
  await sameAsRest(t, c, env.s, env.sid, 'after 9 turns');
});

test('an unknown before_turn is refused with every turn trimmed or not', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(...Array.from({ length: 6 }, (_, i) => reply(`answer ${i}`)));
  await turns(env, 0, 6);
  const r = await env.s.get(`/api/v1/sessions/${env.sid}/transcript?agent_id=main&before_turn=t99`);
  t.is(r.code, 40001);
});

test('an undo that reaches trimmed turns reaches the client store as it reaches GET /transcript; tool frames survive trimming', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const c = await connectClient(env.s, env.sid);
  t.teardown(() => c.ws.close());
  env.llm.setScript(...Array.from({ length: 8 }, (_, i) => reply(`answer ${i}`)));
  await turns(env, 0, 8);
  // No page read since the turns (a page reaching them would put the trimmed turns back first).
  await until(() => (held(env)?.trimmed ?? 0) > 0, 30_000);
  const r = await until(async () => {
    const x = await env.s.post(`/api/v1/sessions/${env.sid}:undo`, { count: 6 });
    return x.code === 40901 ? undefined : x;
  }, 30_000);
  t.is(r!.code, 0, JSON.stringify(r));
  await transcriptIdle(env.s, env.sid);
  const d = await sameAsRest(t, c, env.s, env.sid, 'after an undo of 6 turns');
  t.deepEqual(turnIds(d), ['t0', 't1']);
  t.is(d.meta.turns, 2);

  env.llm.setScript(toolCall('w1', 'Write', { file_path: 'out.txt', content: 'hi\n' }), scripts.helloText, ...Array.from({ length: 5 }, (_, i) => reply(`more ${i}`)));
  await turns(env, 10, 6);
  await transcriptIdle(env.s, env.sid);
  const after = await sameAsRest(t, c, env.s, env.sid, 'after a tool call and 5 more turns');
  t.like(toolFrameOf(after, 'w1'), { state: 'done' });
  t.is(after.meta.turns, 8);
  await restTranscript(env.s, env.sid);
});
