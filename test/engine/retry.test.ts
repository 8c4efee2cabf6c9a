import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { backoffMs } from '../../src/engine/retry.ts';
import { journal, prompt, startEngine, turnEnded, types } from '../helpers/engine.ts';

test('a 429 then success: turn.step.retrying then completed', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.rateLimited, scripts.serverError, scripts.helloText);
  await prompt(env, 'retry me');
  const ended = await turnEnded(env);
  t.is(ended.payload.reason, 'completed');
  const retrying = env.ws.frames.filter((f) => f.type === 'turn.step.retrying');
  t.deepEqual(retrying.map((f) => [f.payload.attempt, f.payload.next_attempt, f.payload.error.status]), [[1, 2, 429], [2, 3, 503]]);
  t.is(retrying[0].payload.error.kind, 'transient');
  t.is(env.llm.requests.length, 3);
});

test('a quota 429 fails the turn at once, without retrying', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.quotaExhausted, scripts.helloText);
  await prompt(env, 'no money');
  const ended = await turnEnded(env);
  t.is(ended.payload.reason, 'failed');
  t.is(ended.payload.error.kind, 'quota');
  t.is(ended.payload.error.status, 429);
  t.is(env.llm.requests.length, 1);
  t.false(types(await journal(env)).includes('turn.step.retrying'));
  t.true(types(await journal(env)).includes('turn.step.interrupted'));
});

test('an upstream 401 ends the turn failed with error kind auth', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.unauthorized);
  await prompt(env, 'who am i');
  const ended = await turnEnded(env);
  t.is(ended.payload.reason, 'failed');
  t.is(ended.payload.error.kind, 'auth');
  t.is(env.llm.requests.length, 1);
});

test('max_attempts_per_step exhausted fails the turn after that many requests', async (t) => {
  const env = await startEngine(t, { extraToml: '[loop_control]\nmax_attempts_per_step = 3' });
  env.llm.setScript(scripts.serverError, scripts.serverError, scripts.serverError, scripts.helloText);
  await prompt(env, 'keeps failing');
  const ended = await turnEnded(env);
  t.is(ended.payload.reason, 'failed');
  t.is(ended.payload.error.kind, 'transient');
  t.is(env.llm.requests.length, 3);
  t.is(env.ws.frames.filter((f) => f.type === 'turn.step.retrying').length, 2);
});

test('a dropped stream is retried as transient', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.droppedMidStream, scripts.helloText);
  await prompt(env, 'flaky');
  t.is((await turnEnded(env)).payload.reason, 'completed');
  t.is(env.llm.requests.length, 2);
});

test('max_steps_per_turn stops a tool loop', async (t) => {
  const env = await startEngine(t, { extraToml: '[loop_control]\nmax_steps_per_turn = 2' });
  env.llm.setScript(scripts.toolCall, scripts.toolCall, scripts.helloText);
  await prompt(env, 'loop');
  const ended = await turnEnded(env);
  t.is(ended.payload.reason, 'failed');
  t.is(ended.payload.error.kind, 'max_steps');
  t.is(ended.payload.steps, 2);
  t.is(env.llm.requests.length, 2);
});

test(':abort during a hang cancels the turn and the fixture sees the request aborted', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.hang);
  await prompt(env, 'wait forever');
  await env.ws.waitFor((f) => f.type === 'turn.step.started');
  t.deepEqual((await env.s.post(`/api/v1/sessions/${env.sid}:abort`)).data, { aborted: true });
  const ended = await turnEnded(env);
  t.is(ended.payload.reason, 'cancelled');
  t.is(await env.llm.requests[0]!.outcome, 'aborted');
  const events = types(await journal(env));
  t.true(events.includes('turn.step.interrupted'));
});

test.serial('an abort during a retry backoff cancels at once', async (t) => {
  process.env.SVC_CODE_RETRY_BASE_MS = '60000';
  const env = await startEngine(t);
  process.env.SVC_CODE_RETRY_BASE_MS = '0';
  env.llm.setScript(scripts.serverError, scripts.helloText);
  await prompt(env, 'slow retry');
  await env.ws.waitFor((f) => f.type === 'turn.step.retrying');
  await env.s.post(`/api/v1/sessions/${env.sid}:abort`);
  t.is((await turnEnded(env)).payload.reason, 'cancelled');
  t.is(env.llm.requests.length, 1);
});

test('backoff is exponential with jitter and honours a longer retry-after', (t) => {
  t.is(backoffMs(1, 100, 5000, () => 0), 5000);
  t.is(backoffMs(3, 100, undefined, () => 0), 200);
  t.is(backoffMs(3, 100, undefined, () => 1), 400);
  t.is(backoffMs(30, 100, undefined, () => 1), 30_000, 'capped');
  t.is(backoffMs(2, 0, 5000), 0, 'the test knob keeps retries instant');
});

test('a dropped stream: live deltas and the journaled messages agree, the retry does not resend the partial text', async (t) => {
  const env = await startEngine(t);
  // Paced so that 'par' and 'tial' reach the daemon before the socket is destroyed (' more' may not).
  env.llm.setScript({ ...scripts.droppedMidStream, drop_after: 4, delay_ms: 30 }, scripts.helloText);
  await prompt(env, 'flaky');
  t.is((await turnEnded(env)).payload.reason, 'completed');
  // A client per Core Events rule 3: lower offset = duplicate (dropped), higher = gap.
  let live = '';
  for (const f of env.ws.frames.filter((x) => x.type === 'assistant.delta' && x.session_id === env.sid)) {
    t.true(f.payload.offset <= live.length, `no gap at offset ${f.payload.offset}`);
    if (f.payload.offset === live.length) live += f.payload.text;
  }
  t.true(live.startsWith('partial') && live.endsWith('Hello, world'), live);
  const page = (await env.s.get(`/api/v1/sessions/${env.sid}/messages`)).data;
  const assistants = [...page.items].reverse().filter((m: any) => m.role === 'assistant');
  const saved = assistants.map((m: any) => m.content.filter((p: any) => p.type === 'text').map((p: any) => p.text).join('')).join('');
  t.is(saved, live);
  t.deepEqual(assistants[0].metadata, { interrupted: true, retried: true });
  const events = types(await journal(env));
  t.true(events.lastIndexOf('message.created', events.indexOf('turn.step.retrying')) > events.indexOf('turn.step.started'), 'partial saved before retrying');
  t.is(env.llm.requests.length, 2);
  t.false(JSON.stringify(env.llm.requests[1]!.body).includes('partial'));
  t.false(JSON.stringify(env.llm.requests[1]!.body).includes('tial'));
});
