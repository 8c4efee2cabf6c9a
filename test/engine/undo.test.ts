import test from 'ava';
import { scripts, type StreamReply } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, turnEnded, type EngineEnv } from '../helpers/engine.ts';
import { until } from '../helpers/wait.ts';

const reply = (text: string): StreamReply => ({ events: [{ text }], usage: { input: 10, output: 2 } });
const sent = (env: Pick<EngineEnv, 'llm'>, i: number) => JSON.stringify(env.llm.requests[i]!.body.messages);
const undoUrl = (env: Pick<EngineEnv, 'sid'>) => `/api/v1/sessions/${env.sid}:undo`;
const textOf = (m: any) => m.content.map((p: any) => p.text ?? p.type).join('');

async function turns(env: EngineEnv, ...texts: string[]): Promise<void> {
  const before = env.ws.frames.filter((f) => f.type === 'turn.ended').length;
  for (const [i, text] of texts.entries()) {
    const r = await prompt(env, text);
    if (r.code !== 0) throw new Error(`prompt refused: ${JSON.stringify(r)}`);
    await turnEnded(env, before + i + 1);
  }
}

const listed = async (env: Pick<EngineEnv, 's' | 'sid'>) =>
  (await env.s.get(`/api/v1/sessions/${env.sid}/messages?page_size=100`)).data.items.map(textOf);

test(':undo removes the last turn (prompt, tool call and answers): messages page, status, last_prompt, next request', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(reply('answer one'), scripts.toolCall, reply('answer two'), reply('answer three'));
  await turns(env, 'first question', 'second question');
  const r = await env.s.post(undoUrl(env), {});
  t.is(r.code, 0);
  t.deepEqual(r.data.messages.items.map(textOf), ['answer one', 'first question']);
  t.false(r.data.messages.has_more);
  t.false(r.data.status.busy);
  t.is(typeof r.data.status.context_tokens, 'number');
  t.is(r.data.status.model, 'fx/model');
  t.deepEqual(Object.keys(r.data.status).sort(), Object.keys((await env.s.get(`/api/v1/sessions/${env.sid}/status`)).data).sort());
  t.is((await env.s.get(`/api/v1/sessions/${env.sid}`)).data.last_prompt, 'first question');
  t.deepEqual(await listed(env), ['answer one', 'first question']);
  const undone = (await journal(env)).find((e) => e.type === 'session.undone')!;
  t.like(undone.payload, { agent_id: 'main', count: 1, last_prompt: 'first question' });
  t.is(undone.payload.message_ids.length, 4, 'prompt, tool call, tool result, answer');
  // GET by id of an undone message: gone.
  t.is((await env.s.get(`/api/v1/sessions/${env.sid}/messages/${undone.payload.message_ids[0]}`)).code, 40403);

  await turns(env, 'third question');
  t.regex(sent(env, 3), /first question.*answer one.*third question/);
  t.notRegex(sent(env, 3), /second question|Reading\.|answer two/);
});

test(':undo of 2 turns with a small page; survives a restart that rebuilds the projections', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(reply('answer one'), reply('answer two'), reply('answer three'));
  await turns(env, 'first question', 'second question', 'third question');
  const r = await env.s.post(undoUrl(env), { count: 2, page_size: 1 });
  t.is(r.code, 0);
  t.deepEqual(r.data.messages.items.map(textOf), ['answer one']);
  t.true(r.data.messages.has_more);
  t.is((await env.s.get(`/api/v1/sessions/${env.sid}`)).data.last_prompt, 'first question');

  // Projections are pure functions of the journal: rebuilt, they still leave the undone turns out.
  const s2 = await env.s.restart({ rebuildProjections: true });
  t.teardown(() => s2.stop());
  const env2 = { s: s2, sid: env.sid };
  t.deepEqual(await listed(env2), ['answer one', 'first question']);
  t.is((await s2.get(`/api/v1/sessions/${env.sid}`)).data.last_prompt, 'first question');
  env.llm.setScript(reply('answer four'));
  t.is((await prompt(env2, 'fourth question')).code, 0);
  await until(() => env.llm.requests.length === 4);
  t.regex(sent(env, 3), /first question.*answer one.*fourth question/);
  t.notRegex(sent(env, 3), /second question|third question/);
  // Undoing the only turn left clears last_prompt... until the next prompt sets it.
  await until(async () => !(await s2.get(`/api/v1/sessions/${env.sid}/status`)).data.busy);
  const again = await s2.post(undoUrl(env), { count: 2 });
  t.is(again.code, 0);
  t.deepEqual(again.data.messages, { items: [], has_more: false });
  t.is(again.data.status.context_tokens, 0, 'the usage projection counts the remaining context');
  t.is((await s2.get(`/api/v1/sessions/${env.sid}`)).data.last_prompt, undefined);
});

test(':undo answers 40911 with no turns and when asked past the undoable turns (also past a compaction)', async (t) => {
  const env = await startEngine(t);
  const none = await env.s.post(undoUrl(env), { count: 2 });
  t.is(none.code, 40911);
  t.deepEqual(none.data, { reason: 'no_turns', requestedCount: 2, undoableCount: 0 });
  env.llm.setScript(reply('answer one'), reply('answer two'), reply('SUMMARY'), reply('answer three'));
  await turns(env, 'first question', 'second question');
  const far = await env.s.post(undoUrl(env), { count: 3 });
  t.is(far.code, 40911);
  t.deepEqual(far.data, { reason: 'too_far', requestedCount: 3, undoableCount: 2 });
  t.deepEqual((await listed(env)).length, 4, 'nothing was undone');
  // A compaction is a boundary: the turns before it can no longer be undone.
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}:compact`, {})).code, 0);
  await env.ws.waitFor((f) => f.type === 'compaction.completed');
  await until(async () => !(await env.s.get(`/api/v1/sessions/${env.sid}/status`)).data.busy);
  t.like(await env.s.post(undoUrl(env), {}), { code: 40911, data: { reason: 'no_turns', undoableCount: 0 } });
  await turns(env, 'third question');
  const r = await env.s.post(undoUrl(env), {});
  t.is(r.code, 0);
  t.is(r.data.messages.items.length, 1);
  t.regex(textOf(r.data.messages.items[0]), /SUMMARY/);
  t.is((await env.s.get(`/api/v1/sessions/${env.sid}`)).data.last_prompt, 'second question');
});

test(':undo answers 40901 while a turn runs', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.hang);
  await prompt(env, 'hang here');
  await env.ws.waitFor((f) => f.type === 'turn.started');
  t.is((await env.s.post(undoUrl(env), {})).code, 40901);
  await env.s.post(`/api/v1/sessions/${env.sid}:abort`);
  await turnEnded(env);
  t.false((await journal(env)).some((e) => e.type === 'session.undone'));
});
