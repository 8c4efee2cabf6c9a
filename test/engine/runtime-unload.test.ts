import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { prompt, startEngine, turnEnded, type EngineEnv } from '../helpers/engine.ts';
import { sweepEveryMs } from '../../src/engine/idle-runtimes.ts';
import { readSettings } from '../../src/app/settings.ts';
import { until } from '../helpers/wait.ts';

// Read when each test's server starts: runtimes of sessions quiet for 250 ms are unloaded.
process.env.SVC_CODE_RUNTIME_IDLE_MS = '250';

const loaded = (env: EngineEnv) => env.s.engine.get(env.sid) !== undefined;

/** What the registry's own idle sweep unloads in its first run at least `ms` from now. */
function sweepAfter(env: EngineEnv, ms: number): Promise<string[]> {
  const engine = env.s.engine;
  const unloadIdle = engine.unloadIdle.bind(engine);
  const from = Date.now() + ms;
  return new Promise((resolve) => {
    engine.unloadIdle = async (now) => {
      const unloaded = await unloadIdle(now);
      if (Date.now() >= from) {
        engine.unloadIdle = unloadIdle;
        resolve(unloaded);
      }
      return unloaded;
    };
  });
}
const boundModel = async (env: EngineEnv) => {
  const r = await env.s.get('/api/v2/sessions?page_size=50');
  return r.data.items.find((x: any) => x.id === env.sid)?.activity.model;
};

test('an idle session is unloaded (cold again) and its next prompt reloads the history from the journal', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.helloText, scripts.helloText);
  t.is((await prompt(env, 'first question')).code, 0);
  await turnEnded(env);
  await until(() => !loaded(env), 30_000);
  t.is(await boundModel(env), null, 'cold again');
  t.false((await env.s.get(`/api/v1/sessions/${env.sid}`)).data.busy);
  t.is((await prompt(env, 'second question')).code, 0);
  t.is((await turnEnded(env, 2)).payload.reason, 'completed');
  const sent = env.llm.requests[1]!.body.messages.map((m: any) => m.content);
  t.true(sent.includes('first question'), 'the reloaded runtime has the first turn');
  t.true(sent.includes('Hello, world'));
  t.true(sent.includes('second question'));
});

test('a session whose turn waits on an approval is not unloaded; reads that resume it load it again', async (t) => {
  const env = await startEngine(t, { extraToml: 'default_permission_mode = "manual"' });
  env.llm.setScript({ events: [{ tool_call: { id: 'w1', name: 'Write', args: { file_path: 'out.txt', content: 'hi\n' } } }] }, scripts.helloText);
  t.is((await prompt(env, 'write it')).code, 0);
  const approval = await until(async () => (await env.s.get(`/api/v1/sessions/${env.sid}/approvals?status=pending`)).data.items[0], 30_000);
  await sweepAfter(env, 300); // past the idle time
  t.true(loaded(env), 'kept while the turn waits');
  await env.s.post(`/api/v1/sessions/${env.sid}/approvals/${approval.approval_id}`, { decision: 'approved' });
  t.is((await turnEnded(env, 1, 30_000)).payload.reason, 'completed');
  await until(() => !loaded(env), 30_000);
  // Whether the read's resume loaded it, checked when the resume returns (the 250 ms sweep may unload it again
  // before the answer arrives on a loaded machine).
  const engine = env.s.engine;
  const resume = engine.resume.bind(engine);
  const loadedByResume: boolean[] = [];
  engine.resume = async (session) => {
    await resume(session);
    if (session.id === env.sid) loadedByResume.push(loaded(env));
  };
  t.is((await env.s.get(`/api/v1/sessions/${env.sid}/messages`)).code, 0);
  t.deepEqual(loadedByResume, [true], 'GET messages resumed it');
});

test('a :btw agent is unloaded with its session and rebuilt from the journal on its next prompt', async (t) => {
  const env = await startEngine(t, { extraToml: 'default_permission_mode = "yolo"' });
  env.llm.setScript({ events: [{ text: 'main answer' }] }, { events: [{ text: 'btw answer' }] }, scripts.helloText);
  await prompt(env, 'main question');
  await turnEnded(env);
  const agentId = (await env.s.post(`/api/v1/sessions/${env.sid}:btw`, {})).data.agent_id as string;
  const btwEnded = () => env.ws.frames.filter((f) => f.type === 'turn.ended' && f.payload.agent_id === agentId).length;
  t.is((await prompt(env, { content: [{ type: 'text', text: 'aside one' }], agent_id: agentId })).code, 0);
  await until(() => btwEnded() === 1, 30_000);
  await until(() => !loaded(env), 30_000);
  t.is((await prompt(env, { content: [{ type: 'text', text: 'aside two' }], agent_id: agentId })).code, 0);
  await until(() => btwEnded() === 2, 30_000);
  const sent = env.llm.requests[2]!.body.messages.map((m: any) => m.content);
  for (const said of ['main question', 'main answer', 'aside one', 'btw answer', 'aside two']) t.true(sent.includes(said), said);
});

test('SVC_CODE_RUNTIME_IDLE_MS: default 30 minutes, 0 keeps every runtime; the sweep runs at most a minute apart', (t) => {
  const runtimeIdleMs = (env: NodeJS.ProcessEnv) => readSettings(env).engine.runtimeIdleMs;
  t.is(runtimeIdleMs({}), 30 * 60_000);
  t.is(runtimeIdleMs({ SVC_CODE_RUNTIME_IDLE_MS: '0' }), 0);
  t.is(runtimeIdleMs({ SVC_CODE_RUNTIME_IDLE_MS: 'soon' }), 30 * 60_000);
  t.is(sweepEveryMs(30 * 60_000), 60_000);
  t.is(sweepEveryMs(150), 75);
});
