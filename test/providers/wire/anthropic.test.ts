import test from 'ava';
import { scripts } from '../../../fixtures/llm/index.ts';
import { collect, userSays } from '../../../fixtures/llm/collect.ts';
import { fixtureClient } from '../../../fixtures/llm/wire-clients.ts';
import { inferAdaptive } from '../../../src/providers/wire/anthropic.ts';
import { fixtureLlm } from '../../helpers/llm.ts';

const OLD = { model: 'claude-sonnet-4-5' };
const NEW = { model: 'claude-opus-4-6' };

test('messages_api: text, usage with cache reads, finish, x-api-key and custom headers', async (t) => {
  const f = await fixtureLlm(t);
  f.setScript(scripts.helloText);
  const client = fixtureClient(f.url, 'messages_api', { api_key: 'sk-ant', custom_headers: { 'X-Gateway': 'g1' } }, OLD);
  const c = await collect(client, { system: 'be brief', ...userSays('hi') });
  t.is(c.text, 'Hello, world');
  t.deepEqual(c.usage, { input: 12, output: 3, cache_read: 4, cache_creation: 0 });
  t.is(c.finish, 'stop');
  const r = f.requests[0]!;
  t.is(r.path, '/v1/messages');
  t.is(r.headers['x-api-key'], 'sk-ant');
  t.is(r.headers['x-gateway'], 'g1');
  t.true(r.body.stream);
  t.deepEqual(r.body.system, [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }], 'the system prompt is a cache breakpoint (prompt-cache.test.ts)');
});

test('messages_api: max_output_size becomes max_tokens; a request cap wins', async (t) => {
  const f = await fixtureLlm(t);
  f.setScript(scripts.helloText, scripts.helloText);
  const client = fixtureClient(f.url, 'messages_api', {}, { ...OLD, max_output_size: 1234 });
  await collect(client, userSays('a'));
  await collect(client, { ...userSays('b'), maxOutputTokens: 99 });
  t.is(f.requests[0]!.body.max_tokens, 1234);
  t.is(f.requests[1]!.body.max_tokens, 99);
});

test('messages_api: thinking streams with its signature kept for replay', async (t) => {
  const f = await fixtureLlm(t);
  f.setScript(scripts.thinkingThenText, scripts.helloText);
  const client = fixtureClient(f.url, 'messages_api', {}, OLD);
  const c = await collect(client, { ...userSays('think'), thinking: { enabled: true, effort: 'low' } });
  t.is(c.reasoning, 'Let me think.');
  t.is(c.text, 'Answer.');
  const end = c.parts.find((p) => p.type === 'reasoning-end') as { meta?: Record<string, Record<string, unknown>> };
  t.is(end.meta?.anthropic?.signature, 'sig-1');
  await collect(client, {
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'think' }] },
      { role: 'assistant', content: [{ type: 'thinking', text: 'Let me think.', meta: end.meta }, { type: 'text', text: 'Answer.' }] },
      { role: 'user', content: [{ type: 'text', text: 'again' }] },
    ],
    thinking: { enabled: true, effort: 'low' },
  });
  const replayed = f.requests[1]!.body.messages[1].content[0];
  t.like(replayed, { type: 'thinking', thinking: 'Let me think.', signature: 'sig-1' });
});

test('messages_api: budget thinking on older models, adaptive with effort on newer ones', async (t) => {
  const f = await fixtureLlm(t);
  f.setScript(scripts.helloText, scripts.helloText, scripts.helloText);
  const thinking = { enabled: true, effort: 'high' };
  await collect(fixtureClient(f.url, 'messages_api', {}, OLD), { ...userSays('a'), thinking });
  await collect(fixtureClient(f.url, 'messages_api', {}, NEW), { ...userSays('b'), thinking });
  await collect(fixtureClient(f.url, 'messages_api', {}, { ...OLD, adaptive_thinking: true }), { ...userSays('c'), thinking });
  t.deepEqual(f.requests[0]!.body.thinking, { type: 'enabled', budget_tokens: 16384 });
  t.like(f.requests[1]!.body, { thinking: { type: 'adaptive' }, output_config: { effort: 'high' } });
  t.like(f.requests[2]!.body, { thinking: { type: 'adaptive' }, output_config: { effort: 'high' } });
});

test('messages_api: adaptive_thinking false forces budget thinking on a new model', async (t) => {
  const f = await fixtureLlm(t);
  f.setScript(scripts.helloText);
  await collect(fixtureClient(f.url, 'messages_api', {}, { ...NEW, adaptive_thinking: false }), { ...userSays('a'), thinking: { enabled: true, effort: 'low' } });
  t.deepEqual(f.requests[0]!.body.thinking, { type: 'enabled', budget_tokens: 2048 });
});

test('messages_api: thinking.keep is a clear-thinking edit on the beta API, only while thinking is on', async (t) => {
  const f = await fixtureLlm(t);
  f.setScript(scripts.helloText, scripts.helloText, scripts.helloText);
  const client = fixtureClient(f.url, 'messages_api', {}, OLD);
  await collect(client, { ...userSays('a'), thinking: { enabled: true, keep: 'all' } });
  await collect(client, { ...userSays('b'), thinking: { enabled: true, keep: '2' } });
  await collect(client, { ...userSays('c'), thinking: { enabled: false, keep: 'all' } });
  t.deepEqual(f.requests[0]!.body.context_management, { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] });
  t.regex(String(f.requests[0]!.headers['anthropic-beta']), /context-management-2025-06-27/);
  t.deepEqual(f.requests[1]!.body.context_management.edits[0].keep, { type: 'thinking_turns', value: 2 });
  t.false('context_management' in f.requests[2]!.body);
  t.notRegex(String(f.requests[2]!.headers['anthropic-beta'] ?? ''), /context-management/);
});

test('messages_api: a tool call streams input_json_delta into the final input', async (t) => {
  const f = await fixtureLlm(t);
  f.setScript(scripts.toolCall);
  const c = await collect(fixtureClient(f.url, 'messages_api', {}, OLD), {
    ...userSays('read'),
    tools: [{ name: 'read_file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }],
  });
  t.deepEqual(c.toolCalls, [{ id: 'call_1', name: 'read_file', input: { path: 'src/a.ts', limit: 20 } }]);
  t.true(c.parts.filter((p) => p.type === 'tool-call-delta').length > 1);
  t.is(c.finish, 'tool_calls');
  t.is(f.requests[0]!.body.tools[0].name, 'read_file');
});

test('messages_api: the env table supplies the key when api_key is absent', async (t) => {
  const f = await fixtureLlm(t);
  f.setScript(scripts.helloText);
  const c = await collect(fixtureClient(f.url, 'messages_api', { api_key: undefined, env: { ANTHROPIC_API_KEY: 'sk-env' } }, OLD), userSays('a'));
  t.is(c.finish, 'stop');
  t.is(f.requests[0]!.headers['x-api-key'], 'sk-env');
});

test('messages_api: adaptive thinking is inferred from the model name', (t) => {
  t.false(inferAdaptive('claude-sonnet-4-5-20250929'));
  t.false(inferAdaptive('claude-3-7-sonnet-latest'));
  t.false(inferAdaptive('claude-opus-4-20250514'));
  t.true(inferAdaptive('claude-opus-4-6'));
  t.true(inferAdaptive('claude-sonnet-5'));
  t.false(inferAdaptive('some-gateway-model'));
});

test('messages_api: image parts and tool results are sent in the Messages shapes', async (t) => {
  const f = await fixtureLlm(t);
  f.setScript(scripts.helloText);
  await collect(fixtureClient(f.url, 'messages_api', {}, OLD), {
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'run', input: { cmd: 'ls' } }] },
      { role: 'tool', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', name: 'run', content: 'boom', is_error: true }] },
    ],
  });
  const [user, assistant, tool] = f.requests[0]!.body.messages;
  t.like(user.content[1], { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } });
  t.like(assistant.content[0], { type: 'tool_use', id: 'toolu_1', name: 'run', input: { cmd: 'ls' } });
  t.like(tool.content[0], { type: 'tool_result', tool_use_id: 'toolu_1', is_error: true });
});
