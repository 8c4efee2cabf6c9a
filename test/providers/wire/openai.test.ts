import test from 'ava';
import { scripts } from '../../../fixtures/llm/index.ts';
import { collect, userSays } from '../../../fixtures/llm/collect.ts';
import { fixtureClient } from '../../../fixtures/llm/wire-clients.ts';
import { agents } from '../../../src/providers/wire/http-post.ts';
import type { ModelRequest, WireType } from '../../../src/providers/wire/types.ts';
import { until } from '../../helpers/wait.ts';
import { fixtureLlm } from '../../helpers/llm.ts';

const OPENAI_FAMILY: WireType[] = ['chat_compat', 'svc', 'chat_compat_responses'];

/** Whether the keep-alive agent of the model requests holds an idle socket to the fixture at `url`. */
const idleSocketTo = (url: string) => Object.entries(agents['http:'].freeSockets).some(([name, free]) => name.startsWith(`${new URL(url).host}:`) && free!.length > 0);

const withTool: ModelRequest = {
  ...userSays('read it'),
  tools: [{ name: 'read_file', description: 'Read a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }],
};

for (const type of OPENAI_FAMILY) {
  test(`${type}: text streams in chunks with usage, finish and the bearer key`, async (t) => {
    const f = await fixtureLlm(t);
    f.setScript(scripts.helloText);
    const c = await collect(fixtureClient(f.url, type, { api_key: 'sk-abc' }), userSays('hi'));
    t.deepEqual(c.parts.filter((p) => p.type === 'text-delta').map((p) => (p as { text: string }).text), ['Hel', 'lo, ', 'world']);
    t.deepEqual(c.usage, { input: 12, output: 3, cache_read: 4, cache_creation: 0 });
    t.is(c.finish, 'stop');
    t.is(c.error, undefined);
    t.is(f.requests[0]!.headers.authorization, 'Bearer sk-abc');
    t.is(f.requests[0]!.body.model, 'fixture-model');
    t.true(f.requests[0]!.body.stream);
  });

  test(`${type}: a tool call streams its arguments and is assembled`, async (t) => {
    const f = await fixtureLlm(t);
    f.setScript(scripts.toolCall);
    const c = await collect(fixtureClient(f.url, type), withTool);
    t.deepEqual(c.toolCalls, [{ id: 'call_1', name: 'read_file', input: { path: 'src/a.ts', limit: 20 } }]);
    t.true(c.parts.filter((p) => p.type === 'tool-call-delta').length > 1, 'arguments arrive in several deltas');
    t.deepEqual(JSON.parse(c.argDeltas.call_1!), { path: 'src/a.ts', limit: 20 });
    const start = c.parts.findIndex((p) => p.type === 'tool-call-start');
    const done = c.parts.findIndex((p) => p.type === 'tool-call');
    t.true(start >= 0 && start < done);
    t.is(c.finish, 'tool_calls');
    const tools = f.requests[0]!.body.tools as Array<Record<string, any>>;
    t.is(tools[0]!.name ?? tools[0]!.function?.name, 'read_file');
  });

  test(`${type}: reasoning deltas stream before the answer`, async (t) => {
    const f = await fixtureLlm(t);
    f.setScript(scripts.thinkingThenText);
    const c = await collect(fixtureClient(f.url, type), { ...userSays('think'), thinking: { enabled: true, effort: 'high' } });
    t.is(c.reasoning, 'Let me think.');
    t.is(c.text, 'Answer.');
    t.true(c.parts.findIndex((p) => p.type === 'reasoning-delta') < c.parts.findIndex((p) => p.type === 'text-delta'));
  });

  test(`${type}: custom_headers, per-request headers and the env-table key are sent`, async (t) => {
    const f = await fixtureLlm(t);
    f.setScript(scripts.helloText);
    const envKey = type === 'svc' ? 'SVC_API_KEY' : 'OPENAI_API_KEY';
    const client = fixtureClient(f.url, type, { api_key: undefined, env: { [envKey]: 'sk-from-env' }, custom_headers: { 'X-Team': 'blue' } });
    const c = await collect(client, { ...userSays('hi'), headers: { 'x-request-tag': 't1' } });
    t.is(c.finish, 'stop');
    const h = f.requests[0]!.headers;
    t.is(h.authorization, 'Bearer sk-from-env');
    t.is(h['x-team'], 'blue');
    t.is(h['x-request-tag'], 't1');
  });
}

for (const type of ['chat_compat', 'svc'] as const) {
  test(`${type}: consecutive requests reuse one keep-alive connection`, async (t) => {
    const f = await fixtureLlm(t);
    // The second answer's body ends 50 ms after its last frame: the client must drain it, not drop the connection.
    f.setScript(scripts.helloText, { ...scripts.toolCall, end_delay_ms: 50 }, scripts.helloText);
    const client = fixtureClient(f.url, type);
    for (const [i, req] of [userSays('a'), withTool, userSays('c')].entries()) {
      t.is((await collect(client, req)).error, undefined);
      t.is(await f.requests[i]!.outcome, 'completed', 'the body was read to its end, not dropped');
      await until(() => idleSocketTo(f.url), 30_000, 'the client to free its socket'); // it handles the body's end, then frees the socket
    }
    t.deepEqual(f.requests.map((r) => r.connection), [f.requests[0]!.connection, f.requests[0]!.connection, f.requests[0]!.connection]);
  });
}

test('chat_compat: reasoning_key reads a non-standard reasoning field', async (t) => {
  const f = await fixtureLlm(t);
  f.setScript({ ...scripts.thinkingThenText, reasoning_field: 'reasoning_text' });
  const client = fixtureClient(f.url, 'chat_compat', {}, { reasoning_key: 'reasoning_text' });
  const c = await collect(client, { ...userSays('think'), thinking: { enabled: true } });
  t.is(c.reasoning, 'Let me think.');
  t.is(c.text, 'Answer.');
});

test('chat_compat: without reasoning_key a non-standard field is not reasoning', async (t) => {
  const f = await fixtureLlm(t);
  f.setScript({ ...scripts.thinkingThenText, reasoning_field: 'reasoning_text' });
  const c = await collect(fixtureClient(f.url, 'chat_compat'), userSays('think'));
  t.is(c.reasoning, '');
  t.is(c.text, 'Answer.');
});

test('chat_compat: reasoning_key renames replayed reasoning on the request', async (t) => {
  const f = await fixtureLlm(t);
  f.setScript(scripts.helloText);
  const client = fixtureClient(f.url, 'chat_compat', {}, { reasoning_key: 'reasoning_text' });
  await collect(client, {
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'q' }] },
      { role: 'assistant', content: [{ type: 'thinking', text: 'earlier thought' }, { type: 'text', text: 'a' }] },
      { role: 'user', content: [{ type: 'text', text: 'q2' }] },
    ],
  });
  const assistant = (f.requests[0]!.body.messages as Array<Record<string, unknown>>).find((m) => m.role === 'assistant')!;
  t.is(assistant.reasoning_text, 'earlier thought');
  t.false('reasoning_content' in assistant);
});

test('chat_compat: effort goes out as reasoning_effort, off_effort when thinking is off', async (t) => {
  const f = await fixtureLlm(t);
  f.setScript(scripts.helloText, scripts.helloText);
  const client = fixtureClient(f.url, 'chat_compat', {}, { off_effort: 'none' });
  await collect(client, { ...userSays('a'), thinking: { enabled: true, effort: 'low' } });
  await collect(client, { ...userSays('b'), thinking: { enabled: false } });
  t.is(f.requests[0]!.body.reasoning_effort, 'low');
  t.is(f.requests[1]!.body.reasoning_effort, 'none');
});

test('svc: thinking.keep is passed through only while thinking is on', async (t) => {
  const f = await fixtureLlm(t);
  f.setScript(scripts.helloText, scripts.helloText);
  const client = fixtureClient(f.url, 'svc');
  await collect(client, { ...userSays('a'), thinking: { enabled: true, effort: 'high', keep: 'all' } });
  await collect(client, { ...userSays('b'), thinking: { enabled: false, keep: 'all' } });
  t.deepEqual(f.requests[0]!.body.thinking, { keep: 'all' });
  t.is(f.requests[0]!.body.reasoning_effort, 'high');
  t.false('thinking' in f.requests[1]!.body);
});

test('chat_compat_responses: effort and summaries go out in the reasoning object', async (t) => {
  const f = await fixtureLlm(t);
  f.setScript(scripts.helloText);
  await collect(fixtureClient(f.url, 'chat_compat_responses'), { ...userSays('a'), thinking: { enabled: true, effort: 'medium' } });
  t.is(f.requests[0]!.path, '/v1/responses');
  t.deepEqual(f.requests[0]!.body.reasoning, { effort: 'medium', summary: 'auto' });
});

test('chat_compat: max_output_tokens and a length finish', async (t) => {
  const f = await fixtureLlm(t);
  f.setScript(scripts.truncated);
  const c = await collect(fixtureClient(f.url, 'chat_compat'), { ...userSays('a'), maxOutputTokens: 7 });
  t.is(f.requests[0]!.body.max_tokens, 7);
  t.is(c.finish, 'length');
});

test('chat_compat: a tool result round-trips into the next request', async (t) => {
  const f = await fixtureLlm(t);
  f.setScript(scripts.helloText);
  await collect(fixtureClient(f.url, 'chat_compat'), {
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'read' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'read_file', input: { path: 'a' } }] },
      { role: 'tool', content: [{ type: 'tool_result', tool_use_id: 'call_1', name: 'read_file', content: 'file body' }] },
    ],
  });
  const msgs = f.requests[0]!.body.messages as Array<Record<string, any>>;
  t.is(msgs[1]!.tool_calls[0].id, 'call_1');
  t.deepEqual(JSON.parse(msgs[1]!.tool_calls[0].function.arguments), { path: 'a' });
  t.like(msgs[2], { role: 'tool', tool_call_id: 'call_1', content: 'file body' });
});

test('chat_compat: the benchmark answer streams all 2,000 deltas in order', async (t) => {
  const f = await fixtureLlm(t);
  f.setScript(scripts.longAnswer(2000));
  const c = await collect(fixtureClient(f.url, 'chat_compat'), userSays('long'));
  const deltas = c.parts.filter((p) => p.type === 'text-delta');
  t.is(deltas.length, 2000);
  t.is((deltas[1999] as { text: string }).text, 'w99 ');
  t.deepEqual(c.usage, { input: 50, output: 2000, cache_read: 0, cache_creation: 0 });
});
