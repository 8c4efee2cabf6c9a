import test from 'ava';
import { scripts, type StreamReply } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, turnEnded, types, type EngineEnv } from '../helpers/engine.ts';
import { until } from '../helpers/wait.ts';

const reply = (text: string, input = 10): StreamReply => ({ events: [{ text }], usage: { input, output: 2 } });
/** Everything a recorded model request sent as messages, as one string. */
const sent = (env: Pick<EngineEnv, 'llm'>, i: number) => JSON.stringify(env.llm.requests[i]!.body.messages);
const compactUrl = (env: Pick<EngineEnv, 'sid'>) => `/api/v1/sessions/${env.sid}:compact`;
const finished = (env: EngineEnv) => env.ws.waitFor((f) => (f.type === 'compaction.completed' || f.type === 'compaction.failed') && f.session_id === env.sid);

async function turns(env: EngineEnv, ...texts: string[]): Promise<void> {
  const before = env.ws.frames.filter((f) => f.type === 'turn.ended').length;
  for (const [i, text] of texts.entries()) {
    mustAccept(await prompt(env, text));
    await turnEnded(env, before + i + 1);
  }
}
function mustAccept(r: { code: number }): void {
  if (r.code !== 0) throw new Error(`prompt refused: ${JSON.stringify(r)}`);
}

test(':compact summarizes the context; the next request has the summary, not the old turns, also after a restart', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(reply('answer one'), reply('answer two'), reply('SUMMARY-XYZ'), reply('answer three'));
  await turns(env, 'first question', 'second question');
  const r = await env.s.post(compactUrl(env), {});
  t.is(r.code, 0);
  t.deepEqual(r.data, {});
  const done = await finished(env);
  t.is(done.type, 'compaction.completed');
  t.like(done.payload, { agent_id: 'main', replaced_messages: 4 });
  t.true(done.payload.tokens_before > 0 && done.payload.tokens_after > 0);
  // Leave out the broadcast work/status events on the session stream (spec/clients.md E5).
  const events = (await journal(env)).filter((e) => !e.type.startsWith('event.session.'));
  t.deepEqual(types(events).slice(-3), ['compaction.started', 'compaction.completed', 'message.created']);
  t.like(events.at(-3)!.payload, { trigger: 'manual', agent_id: 'main', compaction_id: done.payload.compaction_id });
  t.false('instruction' in events.at(-3)!.payload);
  const summary = events.at(-1)!.payload.message;
  t.is(summary.id, done.payload.summary_message_id);
  t.is(summary.role, 'user');
  t.is(summary.metadata.compaction.compaction_id, done.payload.compaction_id);
  t.regex(summary.content[0].text, /SUMMARY-XYZ/);
  // The summary request carried the history and asked for a summary.
  t.regex(sent(env, 2), /first question/);
  t.regex(sent(env, 2), /being compacted/);
  await until(async () => (await env.s.get(`/api/v1/sessions/${env.sid}/status`)).data.busy === false);
  // The context count restarts from the summary (an estimate: 4 characters a token) until the next step measures.
  t.is((await env.s.get(`/api/v1/sessions/${env.sid}/status`)).data.context_tokens, Math.ceil(summary.content[0].text.length / 4));

  await turns(env, 'third question');
  t.regex(sent(env, 3), /SUMMARY-XYZ/);
  t.regex(sent(env, 3), /third question/);
  t.notRegex(sent(env, 3), /first question|answer one|second question/);
  // GET /messages is the transcript: it keeps the older messages and shows the summary.
  const listed = (await env.s.get(`/api/v1/sessions/${env.sid}/messages?page_size=100`)).data.items.map((m: any) => m.content[0]?.text);
  t.true(listed.includes('first question'));
  t.true(listed.some((x: string) => /SUMMARY-XYZ/.test(x)));

  const s2 = await env.s.restart();
  t.teardown(() => s2.stop());
  env.llm.setScript(reply('answer four'));
  const env2 = { s: s2, sid: env.sid };
  t.is((await prompt(env2, 'fourth question')).code, 0);
  await until(() => env.llm.requests.length === 5);
  t.regex(sent(env, 4), /SUMMARY-XYZ.*third question.*answer three.*fourth question/);
  t.notRegex(sent(env, 4), /first question|second question/);
});

test('the :compact instruction reaches the summary request; a blank one is ignored', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(reply('answer one'), reply('S1'), reply('answer two'), reply('S2'));
  await turns(env, 'first question');
  t.is((await env.s.post(compactUrl(env), { instruction: 'focus on the database schema' })).code, 0);
  t.is((await finished(env)).type, 'compaction.completed');
  t.regex(sent(env, 1), /focus on the database schema/);
  const started = (await journal(env)).filter((e) => e.type === 'compaction.started');
  t.is(started[0]!.payload.instruction, 'focus on the database schema');
  await until(async () => (await env.s.get(`/api/v1/sessions/${env.sid}/status`)).data.busy === false);
  await turns(env, 'second question');
  t.is((await env.s.post(compactUrl(env), { instruction: '   ' })).code, 0);
  await env.ws.waitFor((f) => f.type === 'compaction.completed' && f.payload.compaction_id !== started[0]!.payload.compaction_id);
  const again = (await journal(env)).filter((e) => e.type === 'compaction.started');
  t.false('instruction' in again[1]!.payload);
  t.notRegex(sent(env, 3), /Additional instruction/);
});

test(':compact answers 40910 with nothing to compact and while a turn runs', async (t) => {
  const env = await startEngine(t);
  const empty = await env.s.post(compactUrl(env), {});
  t.is(empty.code, 40910);
  t.is(empty.details.reason, 'nothing_to_compact');
  env.llm.setScript(scripts.hang);
  await prompt(env, 'hang here');
  await env.ws.waitFor((f) => f.type === 'turn.started');
  const busy = await env.s.post(compactUrl(env), {});
  t.is(busy.code, 40910);
  t.is(busy.details.reason, 'busy');
  await env.s.post(`/api/v1/sessions/${env.sid}:abort`);
  await turnEnded(env);
  t.false(types(await journal(env)).includes('compaction.started'));
});

test('while a compaction runs the session is busy: :compact 40910, :undo and :fork 40901, prompts queue behind it', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(reply('answer one'), scripts.hang, reply('after'));
  await turns(env, 'first question');
  t.is((await env.s.post(compactUrl(env), {})).code, 0);
  await env.ws.waitFor((f) => f.type === 'compaction.started');
  await until(() => env.llm.requests.length === 2);
  t.true((await env.s.get(`/api/v1/sessions/${env.sid}/status`)).data.busy);
  t.is((await env.s.post(compactUrl(env), {})).code, 40910);
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}:undo`, {})).code, 40901);
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}:fork`, {})).code, 40901);
  const queued = await prompt(env, 'queued question');
  t.is(queued.data.status, 'queued');
  // :abort cancels the compaction; the queued prompt then runs on the unchanged context.
  await env.s.post(`/api/v1/sessions/${env.sid}:abort`);
  const failed = await finished(env);
  t.is(failed.type, 'compaction.failed');
  t.is(failed.payload.error.kind, 'aborted');
  await turnEnded(env, 2);
  t.regex(sent(env, 2), /first question.*queued question/);
});

test('a failing compaction is retried up to compaction_max_attempts, then compaction.failed leaves the context as it was', async (t) => {
  const env = await startEngine(t, { extraToml: '[loop_control]\ncompaction_max_attempts = 3' });
  env.llm.setScript(reply('answer one'), scripts.serverError, scripts.serverError, scripts.serverError, reply('answer two'));
  await turns(env, 'first question');
  t.is((await env.s.post(compactUrl(env), {})).code, 0);
  const failed = await finished(env);
  t.is(failed.type, 'compaction.failed');
  t.like(failed.payload, { attempts: 3, error: { kind: 'transient', status: 503 } });
  t.is(env.llm.requests.length, 4);
  await until(async () => (await env.s.get(`/api/v1/sessions/${env.sid}/status`)).data.busy === false);
  await turns(env, 'second question');
  t.regex(sent(env, 4), /first question.*answer one.*second question/);
});

test('auto-compaction: when the window left falls below reserved_context_size, the turn compacts before its step', async (t) => {
  // max_context_size is 100000: reserving 99900 leaves 100 tokens of window.
  const env = await startEngine(t, { extraToml: '[loop_control]\nreserved_context_size = 99900' });
  env.llm.setScript(reply('answer one', 500), reply('SUMMARY-AUTO'), reply('answer two', 20));
  await turns(env, 'first question', 'second question');
  const events = await journal(env);
  const all = types(events);
  const started = events.find((e) => e.type === 'compaction.started')!;
  t.is(started.payload.trigger, 'auto');
  t.deepEqual(all.filter((x) => x.startsWith('compaction.')), ['compaction.started', 'compaction.completed']);
  // Turn 2 compacts before its first step.
  const secondTurn = all.lastIndexOf('turn.started');
  t.true(secondTurn < all.indexOf('compaction.started'));
  t.true(all.indexOf('compaction.completed') < all.lastIndexOf('turn.step.started'));
  t.is(events.filter((e) => e.type === 'turn.ended').at(-1)!.payload.reason, 'completed');
  // The summary request covers the earlier turn; the turn's own prompt stays verbatim after the summary.
  t.regex(sent(env, 1), /first question/);
  t.notRegex(sent(env, 1), /second question/);
  t.regex(sent(env, 2), /SUMMARY-AUTO.*second question/);
  t.notRegex(sent(env, 2), /first question|answer one/);
  t.is(events.find((e) => e.type === 'compaction.completed')!.payload.replaced_messages, 2);
});

test('a compaction left open by a killed daemon is reported failed (interrupted) when the session loads again', async (t) => {
  const env = await startEngine(t);
  // What a kill -9 during a compaction leaves in the journal (a graceful stop journals compaction.failed itself).
  await env.s.journal.append([{ stream: env.sid, type: 'compaction.started', payload: { compaction_id: 'cmp_killed', agent_id: 'main', trigger: 'manual' } }]);
  env.llm.setScript(reply('answer'));
  mustAccept(await prompt(env, 'question'));
  await turnEnded(env);
  const events = await journal(env);
  const failed = events.find((e) => e.type === 'compaction.failed')!;
  t.like(failed.payload, { compaction_id: 'cmp_killed', agent_id: 'main', error: { kind: 'interrupted' } });
  t.true(events.indexOf(failed) < events.findIndex((e) => e.type === 'turn.started'));
  t.regex(sent(env, 0), /question/);
});
