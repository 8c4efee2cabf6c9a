import test from 'ava';
import { buildOnce, printEnv, runPrint, startDaemon } from '../helpers/print.ts';
import { until } from '../helpers/wait.ts';

// svc-code -p sessions are the home's sessions: resumed by --continue / --session, read through the daemon's
// HTTP API afterwards, and made while a daemon runs on the same home.

test.before(() => buildOnce());

const say = (text: string) => ({ events: [{ text }] });
const userTexts = (body: any): string[] => body.messages.filter((m: any) => m.role === 'user')
  .map((m: any) => (typeof m.content === 'string' ? m.content : m.content.map((p: any) => p.text ?? '').join('')));

test('--continue resumes the directory\'s last session, --session ID that session; --model picks the model', async (t) => {
  const env = await printEnv(t);
  env.llm.setScript(say('one'), say('two'), say('three'));
  const first = JSON.parse((await runPrint(env, ['-p', 'first', '--output-format', 'json'])).stdout);
  const second = await runPrint(env, ['-p', 'second', '--continue', '--output-format', 'json']);
  t.is(second.code, 0, second.stderr);
  t.is(JSON.parse(second.stdout).session_id, first.session_id);
  t.deepEqual(userTexts(env.llm.requests[1]!.body).slice(-2), ['first', 'second']);
  const third = await runPrint(env, ['-p', 'third', '--session', first.session_id, '--model', 'fx/model', '--output-format', 'json']);
  t.is(third.code, 0, third.stderr);
  t.like(JSON.parse(third.stdout), { session_id: first.session_id, result: 'three' });
  t.deepEqual(userTexts(env.llm.requests[2]!.body).slice(-3), ['first', 'second', 'third']);
  t.is(env.llm.requests[2]!.body.model, 'fixture-model');
});

test('a session made in print mode is read through the daemon started afterwards, and one made while a daemon runs shows in its list', async (t) => {
  const env = await printEnv(t);
  env.llm.setScript(say('Paris'), say('Rome'));
  const before = JSON.parse((await runPrint(env, ['-p', 'Capital of France?', '--output-format', 'json'])).stdout);
  const daemon = await startDaemon(t, env);
  const transcript = await daemon.get(`/api/v1/sessions/${before.session_id}/transcript?agent_id=main`);
  t.is(transcript.code, 0, JSON.stringify(transcript));
  const text = JSON.stringify(transcript.data.items);
  t.true(text.includes('Capital of France?') && text.includes('Paris'));
  const during = await runPrint(env, ['-p', 'Capital of Italy?', '--output-format', 'json']);
  t.is(during.code, 0, during.stderr);
  const id = JSON.parse(during.stdout).session_id;
  await until(async () => {
    const list = await daemon.get('/api/v1/sessions');
    return JSON.stringify(list.data).includes(id);
  }, 30_000, 'the print run\'s session in the daemon\'s list');
  t.pass();
});
