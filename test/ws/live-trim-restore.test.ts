import test from 'ava';
import { connectClient, sameAsRest } from '../contract/transcript-client.ts';
import { prompt, startEngine, turnEnded, type EngineEnv } from '../helpers/engine.ts';
import { ended, getTranscript as get, held, live, reply, turnIds, turns } from './live-trim-helpers.ts';
import { until } from '../helpers/wait.ts';

// Restores of trimmed turns (projections/transcript/live/restores.ts, projections/transcript/records-trim.ts): inputs that arrive
// while one runs, failures while it runs, the turns leaving again after the read.
process.env.SVC_CODE_LIVE_TURNS = '3';
// Turns a read put back leave as it ends (30 s later by default; test/ws/live-trim-hold.test.ts).
process.env.SVC_CODE_LIVE_RETRIM_MS = '0';



/** The session is idle (status only: a GET /transcript would restore every turn). */
const idle = (env: EngineEnv) => until(async () => !(await env.s.get(`/api/v1/sessions/${env.sid}/status`)).data.busy || undefined, 30_000);

async function trimmedSession(t: any, n: number): Promise<EngineEnv> {
  const env = await startEngine(t);
  // The session's live fold exists from the start (as with a client subscribed), so turn ends trim it.
  await live(env).ensure(env.sid);
  env.llm.setScript(...Array.from({ length: n + 8 }, (_, i) => reply(`answer ${i}`)));
  await turns(env, 0, n);
  await idle(env);
  await until(() => (held(env)?.trimmed ?? 0) > 0, 30_000);
  return env;
}

test('a read whose restore sees turns end meanwhile is answered from the restored turns (the entry is pinned)', async (t) => {
  const env = await trimmedSession(t, 9);
  const c = await connectClient(env.s, env.sid);
  t.teardown(() => c.ws.close());
  // Each of the first 4 restores waits for a whole turn to end (queued while it runs; applied before the read resumes).
  let calls = 0;
  live(env).restoreHook = async () => {
    if (++calls > 4) return;
    const before = ended(env);
    const r = await prompt(env, `during restore ${calls}`);
    if (r.code !== 0) throw new Error(JSON.stringify(r));
    await turnEnded(env, before + 1);
  };
  const r = await get(env, 'page_size=2&before_turn=t2');
  t.is(r.code, 0, JSON.stringify(r));
  t.deepEqual(turnIds(r.data), ['t0', 't1']);
  t.false(r.data.has_more);
  live(env).restoreHook = undefined;
  await idle(env);
  // The turns the read put back left again once it ended; the client store still equals GET /transcript.
  await until(() => (held(env)?.trimmed ?? 0) > 0, 30_000);
  t.true(held(env)!.turns <= 5, JSON.stringify(held(env)));
  await sameAsRest(t, c, env.s, env.sid, 'after turns ended during a restore');
});

test('a failure while putting trimmed turns back drops the fold (no unhandled rejection); the read folds again and answers', async (t) => {
  const env = await trimmedSession(t, 8);
  let fail = 1;
  live(env).restoreHook = () => {
    if (fail-- > 0) throw new Error('injected: failure while putting turns back');
  };
  const r = await get(env, 'page_size=2&before_turn=t2');
  t.is(r.code, 0, JSON.stringify(r));
  t.deepEqual(turnIds(r.data), ['t0', 't1']);
  t.is(live(env).stats().restore_failures, 1);
  live(env).restoreHook = undefined;
  const all = await get(env, 'page_size=100');
  t.deepEqual(turnIds(all.data), Array.from({ length: 8 }, (_, i) => `t${i}`));
});

test('a journal fold that fails during a restore drops the fold; the next read works', async (t) => {
  const env = await trimmedSession(t, 8);
  const journal = (live(env) as any).deps.journal;
  const readRange = journal.readRange;
  let fail = 1;
  journal.readRange = function (this: unknown, stream: string, ...rest: unknown[]) {
    if (stream === env.sid && fail-- > 0) return Promise.reject(new Error('injected: readRange failed'));
    return readRange.call(this, stream, ...rest);
  };
  t.teardown(() => { journal.readRange = readRange; });
  const r = await get(env, 'page_size=2&before_turn=t2');
  t.is(r.code, 0, JSON.stringify(r));
  t.deepEqual(turnIds(r.data), ['t0', 't1']);
  t.true(live(env).stats().restore_failures >= 1);
});

test('pages from trimmed state: page_size == turns held, after_turn, before_turn; turns leave again after each read', async (t) => {
  const env = await trimmedSession(t, 9);
  const c = await connectClient(env.s, env.sid);
  t.teardown(() => c.ws.close());
  await until(() => (held(env)?.trimmed ?? 0) > 0, 30_000);
  const h = held(env)!;
  const restores = live(env).stats().restores;
  // The newest page of as many turns as are held reaches the trimmed ones (has_more needs them).
  const newest = await get(env, `page_size=${h.turns}`);
  t.deepEqual(turnIds(newest.data), Array.from({ length: h.turns }, (_, i) => `t${9 - h.turns + i}`));
  t.true(newest.data.has_more);
  t.is(newest.data.meta.turns, 9);
  t.true(live(env).stats().restores > restores);
  // Walking back, each page from trimmed state.
  const seen = [...turnIds(newest.data)];
  let d = newest.data;
  while (d.has_more) {
    t.true((held(env)?.trimmed ?? 0) > 0, 'trimmed before the page');
    d = (await get(env, `page_size=2&before_turn=${turnIds(d)[0]}`)).data;
    seen.unshift(...turnIds(d));
  }
  t.deepEqual(seen, Array.from({ length: 9 }, (_, i) => `t${i}`));
  t.true((held(env)?.trimmed ?? 0) > 0);
  const after = await get(env, 'page_size=2&after_turn=t0');
  t.deepEqual(turnIds(after.data), ['t1', 't2']);
  t.true((held(env)?.trimmed ?? 0) > 0);
  t.true(held(env)!.turns <= 3, JSON.stringify(held(env)));
  await sameAsRest(t, c, env.s, env.sid, 'after paging from trimmed state');
});

test('inputs past the queue bound during a restore drop the fold as a failed apply; the read folds again and answers', async (t) => {
  const env = await trimmedSession(t, 8);
  live(env).settings.maxQueue = 2;
  let calls = 0;
  live(env).restoreHook = async () => {
    if (++calls > 1) return;
    const before = ended(env);
    const r = await prompt(env, 'during restore');
    if (r.code !== 0) throw new Error(JSON.stringify(r));
    await turnEnded(env, before + 1);
  };
  const r = await get(env, 'page_size=2&before_turn=t2');
  t.is(r.code, 0, JSON.stringify(r));
  t.deepEqual(turnIds(r.data), ['t0', 't1']);
  t.true(live(env).stats().queue_overflows >= 1);
  live(env).settings.maxQueue = 20_000;
  live(env).restoreHook = undefined;
  await idle(env);
  const all = await get(env, 'page_size=100');
  t.deepEqual(turnIds(all.data), Array.from({ length: 9 }, (_, i) => `t${i}`));
});

test('a session deleted while a read restores its turns: the read answers session-not-found, no fold is left', async (t) => {
  const env = await trimmedSession(t, 8);
  live(env).restoreHook = async () => {
    const r = await env.s.post(`/api/v1/sessions/${env.sid}:delete`);
    if (r.code !== 0) throw new Error(JSON.stringify(r));
  };
  const r = await get(env, 'page_size=2&before_turn=t2');
  t.is(r.code, 40401, JSON.stringify(r));
  t.false(live(env).has(env.sid));
});

test('two reads at once reaching trimmed turns share one restore; both answer from the restored turns', async (t) => {
  const env = await trimmedSession(t, 9);
  const restores = live(env).stats().restores;
  const [a, b] = await Promise.all([get(env, 'page_size=2&before_turn=t2'), get(env, 'page_size=3&after_turn=t0')]);
  t.deepEqual(turnIds(a.data), ['t0', 't1']);
  t.deepEqual(turnIds(b.data), ['t1', 't2', 't3']);
  t.is(live(env).stats().restores, restores + 1);
  t.true((held(env)?.trimmed ?? 0) > 0);
});
