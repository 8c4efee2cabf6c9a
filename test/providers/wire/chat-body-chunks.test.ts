import test from 'ava';
import { chatBodyChunks, chatBodyJson } from '../../../src/providers/wire/chat-completions/request.ts';
import type { ModelMessage, ModelRequest } from '../../../src/providers/wire/types.ts';

// A long session's request body is written in pieces, none of them a V8 large object (128 KiB and up): as one
// string per request it was garbage only a full GC frees (docs/benchmarks.md "Session 7 — stream-load memory").

function longHistory(turns: number): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (let i = 0; i < turns; i++) {
    out.push({ role: 'user', content: [{ type: 'text', text: `question ${i} "quoted" \u00e9` }] });
    out.push({
      role: 'assistant',
      content: [{ type: 'thinking', text: `why ${i}` }, { type: 'text', text: `answer ${i} `.repeat(150) }, { type: 'tool_use', id: `c${i}`, name: 'Read', input: { path: `f${i}` } }],
    });
    out.push({ role: 'tool', content: [{ type: 'tool_result', tool_use_id: `c${i}`, name: 'Read', content: `line ${i}\n`.repeat(20) }] });
  }
  return out;
}

test('a long history goes out in pieces under 64 K characters that join into the same JSON body', (t) => {
  const req: ModelRequest = {
    system: 'be brief',
    messages: longHistory(200),
    tools: [{ name: 'Read', description: 'reads', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }],
  };
  const o = { model: 'm', maxTokens: 100, reasoningEffort: 'low', extra: { thinking: { keep: 'all' } } };
  const chunks = chatBodyChunks(req, o);
  const whole = chunks.join('');
  t.true(whole.length > 400_000, `body ${whole.length} chars`);
  t.true(chunks.length > 10, `${chunks.length} chunks`);
  for (const c of chunks) t.true(c.length < 64 * 1024, `a chunk of ${c.length} chars`);
  t.is(chatBodyJson(req, o), whole);
  const body = JSON.parse(whole) as { messages: Array<Record<string, unknown>>; [k: string]: unknown };
  t.deepEqual(Object.keys(body), ['model', 'max_tokens', 'thinking', 'reasoning_effort', 'messages', 'tools', 'stream', 'stream_options']);
  t.is(body.messages.length, 1 + 200 * 3);
  t.deepEqual(body.messages[0], { role: 'system', content: 'be brief' });
  t.deepEqual(body.messages[1], { role: 'user', content: 'question 0 "quoted" \u00e9' });
  t.deepEqual(body.messages[2], {
    role: 'assistant', content: 'answer 0 '.repeat(150), reasoning_content: 'why 0',
    tool_calls: [{ id: 'c0', type: 'function', function: { name: 'Read', arguments: '{"path":"f0"}' } }],
  });
  t.deepEqual(body.messages[600], { role: 'tool', tool_call_id: 'c199', content: 'line 199\n'.repeat(20) });
});

test('a short request is one piece besides the tail; no messages still makes a valid body', (t) => {
  const one = chatBodyChunks({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }, { model: 'm' });
  t.is(one.length, 2);
  t.deepEqual(JSON.parse(one.join('')), { model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
  t.deepEqual(JSON.parse(chatBodyChunks({ messages: [] }, { model: 'm' }).join('')).messages, []);
});
