import test from 'ava';
import { collect } from '../../../fixtures/llm/collect.ts';
import { fixtureClient } from '../../../fixtures/llm/wire-clients.ts';
import type { ModelRequest } from '../../../src/providers/wire/types.ts';
import { fixtureLlm } from '../../helpers/llm.ts';

const MODEL = { model: 'claude-sonnet-4-5' };
const text = (t: string) => [{ type: 'text' as const, text: t }];

/** A conversation of a few steps: user, assistant with a tool call, its result, then the next user message. */
const REQUEST: ModelRequest = {
  system: 'You are a coding agent.',
  tools: [{ name: 'Read', description: 'Reads a file', input_schema: { type: 'object', properties: { file_path: { type: 'string' } } } }],
  messages: [
    { role: 'user', content: text('read a.txt') },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'Read', input: { file_path: 'a.txt' } }] },
    { role: 'tool', content: [{ type: 'tool_result', tool_use_id: 'c1', name: 'Read', content: [{ type: 'text', text: 'alpha' }] }] },
    { role: 'assistant', content: text('It says alpha.') },
    { role: 'user', content: text('and now?') },
  ],
} as unknown as ModelRequest;

const marks = (blocks: any[] | string | undefined) => (Array.isArray(blocks) ? blocks.filter((b) => b.cache_control).length : 0);

test('messages_api marks the stable prefix with cache breakpoints: the system prompt and the last two messages, at most 4', async (t) => {
  const f = await fixtureLlm(t);
  f.setScript({ events: [{ text: 'ok' }], usage: { input: 1200, output: 3, cache_read: 900, cache_creation: 250 } });
  const c = await collect(fixtureClient(f.url, 'messages_api', {}, MODEL), REQUEST);
  t.is(c.error, undefined);
  const body = f.requests[0]!.body;
  t.deepEqual(body.system.at(-1).cache_control, { type: 'ephemeral' }, 'the system prompt (after the tools) is a breakpoint');
  const msgs: any[] = body.messages;
  t.deepEqual(msgs.at(-1).content.at(-1).cache_control, { type: 'ephemeral' }, 'the last message writes the conversation so far');
  t.deepEqual(msgs.at(-2).content.at(-1).cache_control, { type: 'ephemeral' }, 'the one before is where the previous step wrote');
  const total = marks(body.system) + msgs.reduce((n, m) => n + marks(m.content), 0) + marks(body.tools);
  t.true(total <= 4, `${total} breakpoints`);
  t.deepEqual(c.usage, { input: 1200, output: 3, cache_read: 900, cache_creation: 250 }, 'cache_* usage is reported as the protocol gives it');
});

test('other protocols send no Anthropic cache marks', async (t) => {
  const f = await fixtureLlm(t);
  f.setScript({ events: [{ text: 'ok' }] });
  await collect(fixtureClient(f.url, 'chat_compat', {}, MODEL), REQUEST);
  t.false(JSON.stringify(f.requests[0]!.body).includes('cache_control'));
});
