import test from 'ava';
import { ChunkMapper } from '../../../src/providers/wire/chat-completions/chunks.ts';
import { chatBodyJson } from '../../../src/providers/wire/chat-completions/request.ts';
import type { ModelRequest, ModelStreamPart } from '../../../src/providers/wire/types.ts';

const chatBody = (req: ModelRequest, o: { model: string; maxTokens?: number }) => JSON.parse(chatBodyJson(req, o)) as Record<string, unknown>;

/** Gateway variations the fixture's standard chunks do not produce, fed to the production mapper. */
function run(chunks: unknown[], opts: { reasoningKey?: string; end?: boolean } = {}): ModelStreamPart[] {
  const m = new ChunkMapper(opts.reasoningKey);
  const out: ModelStreamPart[] = [];
  for (const c of chunks) m.map(typeof c === 'string' ? c : JSON.stringify(c), out);
  if (opts.end !== false) m.end(out);
  return out;
}

const delta = (d: Record<string, unknown>, finish: string | null = null) => ({ choices: [{ index: 0, delta: d, finish_reason: finish }] });

test('two calls streamed by index, interleaved, complete in index order at the finish reason', (t) => {
  const parts = run([
    delta({ tool_calls: [{ index: 1, id: 'b', function: { name: 'grep', arguments: '{"p":' } }] }),
    delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 'read', arguments: '' } }] }),
    delta({ tool_calls: [{ index: 0, function: { arguments: '{"f":1}' } }, { index: 1, function: { arguments: '2}' } }] }),
    delta({}, 'tool_calls'),
    { choices: [], usage: { prompt_tokens: 5, completion_tokens: 3 } },
  ]);
  const calls = parts.filter((p) => p.type === 'tool-call');
  t.deepEqual(calls, [
    { type: 'tool-call', id: 'a', name: 'read', input: { f: 1 } },
    { type: 'tool-call', id: 'b', name: 'grep', input: { p: 2 } },
  ]);
  t.deepEqual(parts.slice(-2), [
    { type: 'usage', usage: { input: 5, output: 3, cache_read: 0, cache_creation: 0 } },
    { type: 'finish', reason: 'tool_calls', raw: 'tool_calls' },
  ]);
  t.true(parts.findIndex((p) => p.type === 'tool-call-start') < parts.findIndex((p) => p.type === 'tool-call-delta'));
});

test('calls without an index (Gemini compatibility) get an id and keep their signature for the next request', (t) => {
  const sig = { google: { thought_signature: 'sig-1' } };
  const parts = run([
    delta({ tool_calls: [{ function: { name: 'read', arguments: '{"f":"a"}' }, extra_content: sig }] }),
    delta({ tool_calls: [{ function: { name: 'ls', arguments: '{}' } }] }),
    delta({}, 'tool_calls'),
  ]);
  const calls = parts.filter((p): p is Extract<ModelStreamPart, { type: 'tool-call' }> => p.type === 'tool-call');
  t.is(calls.length, 2);
  t.regex(calls[0].id, /^call_/);
  t.not(calls[0].id, calls[1].id);
  t.deepEqual(calls[0].input, { f: 'a' });
  t.deepEqual(calls[0].meta, { chat_completions: { extra_content: sig } });
  const body = chatBody({
    messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: calls[0].id, name: 'read', input: { f: 'a' }, meta: calls[0].meta }] }],
  }, { model: 'm' }) as { messages: Array<{ tool_calls: Array<Record<string, unknown>> }> };
  t.deepEqual(body.messages[0].tool_calls[0].extra_content, sig);
});

test('reasoning ends when text starts; content arrays carry text and thinking', (t) => {
  const parts = run([
    delta({ reasoning: 'hmm ' }),
    delta({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'more' }] }] }),
    delta({ content: [{ type: 'text', text: 'Hi' }] }),
    delta({ content: '!' }, 'stop'),
  ]);
  t.deepEqual(parts.slice(0, 5), [
    { type: 'reasoning-delta', text: 'hmm ' },
    { type: 'reasoning-delta', text: 'more' },
    { type: 'reasoning-end' },
    { type: 'text-delta', text: 'Hi' },
    { type: 'text-delta', text: '!' },
  ]);
  t.deepEqual(parts.at(-1), { type: 'finish', reason: 'stop', raw: 'stop' });
});

test('a custom reasoning_key field is reasoning; an unknown finish reason is other', (t) => {
  const parts = run([delta({ thoughts: 'x' }), delta({ content: 'y' }, 'eos')], { reasoningKey: 'thoughts' });
  t.deepEqual(parts[0], { type: 'reasoning-delta', text: 'x' });
  t.deepEqual(parts.at(-1), { type: 'finish', reason: 'other', raw: 'eos' });
});

test('a stream that ends without a finish reason is a transient error; invalid JSON is an error', (t) => {
  t.deepEqual(run([delta({ content: 'partial' })]).at(-1), {
    type: 'error', error: { kind: 'transient', message: 'stream ended before the model finished' },
  });
  const bad = run(['{not json'], { end: false });
  t.is(bad.length, 1);
  t.like(bad[0], { type: 'error', error: { kind: 'other' } });
});

test('an error chunk is classified like any other in-stream error', (t) => {
  const parts = run([{ error: { message: 'You exceeded your current quota (429)', code: 'insufficient_quota' } }], { end: false });
  t.like(parts[0], { type: 'error', error: { kind: 'quota' } });
});

test('request body: images as image_url parts, text tool results joined, system first, tools as functions', (t) => {
  const body = chatBody({
    system: 'sys',
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', data: 'QUJD', mediaType: 'image/png' }, { type: 'image', data: 'https://x/y.png', mediaType: 'image/png' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'shot', input: {} }] },
      { role: 'tool', content: [{ type: 'tool_result', tool_use_id: 'c1', name: 'shot', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }] },
    ],
    tools: [{ name: 'shot', inputSchema: { type: 'object' } }],
  }, { model: 'm', maxTokens: 9 }) as Record<string, any>;
  t.deepEqual(body.messages[0], { role: 'system', content: 'sys' });
  t.deepEqual(body.messages[1].content.slice(1), [
    { type: 'image_url', image_url: { url: 'data:image/png;base64,QUJD' } },
    { type: 'image_url', image_url: { url: 'https://x/y.png' } },
  ]);
  t.like(body.messages[2], { role: 'assistant', content: null });
  t.deepEqual(body.messages[3], { role: 'tool', tool_call_id: 'c1', content: 'a\nb' });
  t.deepEqual(body.tools, [{ type: 'function', function: { name: 'shot', parameters: { type: 'object' } } }]);
  t.like(body, { model: 'm', max_tokens: 9, stream: true, stream_options: { include_usage: true } });
});
