import test from 'ava';
import { scripts } from '../../../fixtures/llm/index.ts';
import { collect, userSays } from '../../../fixtures/llm/collect.ts';
import { fixtureClient } from '../../../fixtures/llm/wire-clients.ts';
import type { WireType } from '../../../src/providers/wire/types.ts';
import { fixtureLlm } from '../../helpers/llm.ts';

const GOOGLE: Array<{ type: WireType; path: string; envKey: string }> = [
  { type: 'genai', path: '/v1beta/models/gemini-3-pro:streamGenerateContent', envKey: 'GEMINI_API_KEY' },
  { type: 'cloud_ai', path: '/v1/publishers/google/models/gemini-3-pro:streamGenerateContent', envKey: 'GOOGLE_VERTEX_API_KEY' },
];
const MODEL = { model: 'gemini-3-pro' };

for (const { type, path, envKey } of GOOGLE) {
  test(`${type}: text streams to the streamGenerateContent SSE endpoint with x-goog-api-key`, async (t) => {
    const f = await fixtureLlm(t);
    f.setScript(scripts.helloText);
    const c = await collect(fixtureClient(f.url, type, { api_key: 'g-key', custom_headers: { 'X-Org': 'o1' } }, MODEL), { system: 'sys', ...userSays('hi') });
    t.deepEqual(c.parts.filter((p) => p.type === 'text-delta').map((p) => (p as { text: string }).text), ['Hel', 'lo, ', 'world']);
    t.deepEqual(c.usage, { input: 12, output: 3, cache_read: 4, cache_creation: 0 });
    t.is(c.finish, 'stop');
    const r = f.requests[0]!;
    t.is(r.path, path);
    t.is(r.query.alt, 'sse');
    t.is(r.headers['x-goog-api-key'], 'g-key');
    t.is(r.headers['x-org'], 'o1');
    t.deepEqual(r.body.systemInstruction.parts, [{ text: 'sys' }]);
  });

  test(`${type}: thoughts stream as reasoning; effort becomes a thinking level`, async (t) => {
    const f = await fixtureLlm(t);
    f.setScript(scripts.thinkingThenText);
    const c = await collect(fixtureClient(f.url, type, {}, MODEL), { ...userSays('think'), thinking: { enabled: true, effort: 'low' } });
    t.is(c.reasoning, 'Let me think.', JSON.stringify(c.parts).slice(0, 500));
    t.is(c.text, 'Answer.');
    t.deepEqual(f.requests[0]!.body.generationConfig.thinkingConfig, { includeThoughts: true, thinkingLevel: 'low' });
  });

  test(`${type}: a function call arrives as start, arguments and the parsed call`, async (t) => {
    const f = await fixtureLlm(t);
    f.setScript(scripts.toolCall);
    const c = await collect(fixtureClient(f.url, type, {}, MODEL), {
      ...userSays('read'),
      tools: [{ name: 'read_file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }],
    });
    t.deepEqual(c.toolCalls, [{ id: 'call_1', name: 'read_file', input: { path: 'src/a.ts', limit: 20 } }]);
    t.deepEqual(JSON.parse(c.argDeltas.call_1!), { path: 'src/a.ts', limit: 20 });
    t.is(c.finish, 'tool_calls');
    t.is(f.requests[0]!.body.tools[0].functionDeclarations[0].name, 'read_file');
  });

  test(`${type}: the env table supplies the key`, async (t) => {
    const f = await fixtureLlm(t);
    f.setScript(scripts.helloText);
    const c = await collect(fixtureClient(f.url, type, { api_key: undefined, env: { [envKey]: 'g-env' } }, MODEL), userSays('a'));
    t.is(c.finish, 'stop');
    t.is(f.requests[0]!.headers['x-goog-api-key'], 'g-env');
  });

  test(`${type}: MAX_TOKENS maps to a length finish`, async (t) => {
    const f = await fixtureLlm(t);
    f.setScript(scripts.truncated);
    const c = await collect(fixtureClient(f.url, type, {}, MODEL), { ...userSays('a'), maxOutputTokens: 5 });
    t.is(c.finish, 'length');
    t.is(f.requests[0]!.body.generationConfig.maxOutputTokens, 5);
  });
}

test('genai: Gemini 2.x gets a thinking budget instead of a level', async (t) => {
  const f = await fixtureLlm(t);
  f.setScript(scripts.helloText);
  await collect(fixtureClient(f.url, 'genai', {}, { model: 'gemini-2.5-flash' }), { ...userSays('a'), thinking: { enabled: true, effort: 'high' } });
  t.deepEqual(f.requests[0]!.body.generationConfig.thinkingConfig, { includeThoughts: true, thinkingBudget: 24576 });
});

test('cloud_ai: without an api key or service account the client is not built', (t) => {
  const err = t.throws(() => fixtureClient('http://127.0.0.1:9', 'cloud_ai', { api_key: undefined, env: { GOOGLE_VERTEX_PROJECT: 'p' } }, MODEL));
  t.regex(err!.message, /GOOGLE_CLIENT_EMAIL/);
});
