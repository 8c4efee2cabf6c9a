import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { readSettings } from '../../src/app/settings.ts';
import { prompt, startEngine, turnEnded, type EngineEnv } from '../helpers/engine.ts';

/** A server whose model requests time out after 150 ms without a stream part (read when it starts). */
async function startWithTimeout(t: Parameters<typeof startEngine>[0], extraToml?: string): Promise<EngineEnv> {
  process.env.SVC_CODE_MODEL_IDLE_TIMEOUT_MS = '150';
  try {
    return await startEngine(t, extraToml ? { extraToml } : {});
  } finally {
    delete process.env.SVC_CODE_MODEL_IDLE_TIMEOUT_MS;
  }
}

test.serial('a hung request times out as transient, is aborted upstream, and the retry completes the turn', async (t) => {
  const env = await startWithTimeout(t);
  env.llm.setScript(scripts.hang, scripts.helloText);
  await prompt(env, 'are you there');
  const ended = await turnEnded(env);
  t.is(ended.payload.reason, 'completed');
  // The retry has the same 150 ms bound: on a loaded machine its first part can come later and it times out too
  // (then a third request is answered); how many retries there were depends on speed, what each was does not.
  const retrying = env.ws.frames.filter((f) => f.type === 'turn.step.retrying');
  t.true(retrying.length >= 1);
  t.true(retrying.every((f) => f.payload.error.kind === 'transient'));
  t.is(env.llm.requests.length, retrying.length + 1);
  t.is(await env.llm.requests[0]!.outcome, 'aborted');
  t.is(await env.llm.requests.at(-1)!.outcome, 'completed');
});

test.serial('with max_attempts_per_step = 1 a timeout fails the turn with kind transient', async (t) => {
  const env = await startWithTimeout(t, '[loop_control]\nmax_attempts_per_step = 1');
  env.llm.setScript(scripts.hang, scripts.helloText);
  await prompt(env, 'are you there');
  const ended = await turnEnded(env);
  t.is(ended.payload.reason, 'failed');
  t.is(ended.payload.error.kind, 'transient');
  t.is(env.llm.requests.length, 1);
  t.is(await env.llm.requests[0]!.outcome, 'aborted');
  t.false(env.ws.frames.some((f) => f.type === 'turn.step.retrying'));
});

test.serial('a stream that stalls after its headers and first frame times out too', async (t) => {
  process.env.SVC_CODE_MODEL_IDLE_TIMEOUT_MS = '150';
  const env = await startEngine(t, { extraToml: '[loop_control]\nmax_attempts_per_step = 1' });
  delete process.env.SVC_CODE_MODEL_IDLE_TIMEOUT_MS;
  env.llm.setScript({ events: [{ text: 'slo' }, { text: 'w' }], delay_ms: 5000 });
  await prompt(env, 'slowly');
  const ended = await turnEnded(env);
  t.is(ended.payload.reason, 'failed');
  t.is(ended.payload.error.kind, 'transient');
  t.is(await env.llm.requests[0]!.outcome, 'aborted');
  const roles = (await env.s.get(`/api/v1/sessions/${env.sid}/messages`)).data.items.map((m: any) => m.role);
  t.deepEqual(roles, ['user'], 'nothing streamed, nothing saved');
});

test('the idle timeout defaults to 5 minutes and reads the env override', (t) => {
  const modelIdleTimeoutMs = (env: NodeJS.ProcessEnv) => readSettings(env).engine.modelIdleTimeoutMs;
  t.is(modelIdleTimeoutMs({}), 300_000);
  t.is(modelIdleTimeoutMs({ SVC_CODE_MODEL_IDLE_TIMEOUT_MS: '2500' }), 2500);
  t.is(modelIdleTimeoutMs({ SVC_CODE_MODEL_IDLE_TIMEOUT_MS: 'soon' }), 300_000);
});
