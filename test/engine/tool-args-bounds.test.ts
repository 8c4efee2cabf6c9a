import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { parseToolArgs } from '../../src/providers/wire/tool-args.ts';
import { journal, prompt, startEngine, turnEnded } from '../helpers/engine.ts';

const deepJson = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

test('tool arguments nested deeper than a stored value may nest are kept as raw text', (t) => {
  t.deepEqual(parseToolArgs('{"file_path":"a"}'), { file_path: 'a' });
  t.is(typeof parseToolArgs(deepJson(32)), 'object');
  t.is(parseToolArgs(deepJson(33)), deepJson(33));
  t.is(parseToolArgs(deepJson(100_000)), deepJson(100_000));
});

test('a model tool call nested 100,000 deep fails that call, not the journal: the turn ends and the session stays writable', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript({ events: [{ tool_call: { id: 'deep_0', name: 'Read', args: `{"file_path":${deepJson(100_000)}}`, chunks: 4 } }] }, scripts.helloText);
  t.is((await prompt(env, 'go')).code, 0);
  await turnEnded(env, 1, 30_000);
  const result = (await journal(env)).find((e) => e.type === 'tool.result' && e.payload.tool_call_id === 'deep_0');
  t.true(result?.payload.is_error);
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}/profile`, { title: 'after' })).code, 0);
  t.is((await env.s.post('/api/v1/gui/store/setItem', { key: 'k', value: 'v' })).code, 0);
  t.is(env.s.journal.failure, null);
});
