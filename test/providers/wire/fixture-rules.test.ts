import test, { type ExecutionContext } from 'ava';
import { DEFAULT_MODEL, estimateInputTokens, scripts, type FixtureLlm, type FixtureModel, type FixtureOptions, type FixtureProtocol, type FixtureRule } from '../../../fixtures/llm/index.ts';
import { collect, userSays } from '../../../fixtures/llm/collect.ts';
import { fixtureClient } from '../../../fixtures/llm/wire-clients.ts';
import type { ModelMessage, ModelRequest, WireType } from '../../../src/providers/wire/types.ts';
import { exposedName } from '../../../src/mcp/names.ts';
import { BUILTIN_TOOLS } from '../../../src/tools/registry.ts';
import { fixtureLlm } from '../../helpers/llm.ts';
import { pngBase64 } from '../../helpers/png.ts';

/**
 * The fixture LLM refuses what each real provider refuses, with the provider's status and error
 * body, through the production wire clients (the daemon's own), and takes no scripted reply.
 */

type Case = Record<WireType, string>;
const TYPES = ['chat_compat', 'chat_compat_responses', 'messages_api', 'genai', 'cloud_ai'] as const;
const PROTOCOL: Record<(typeof TYPES)[number], FixtureProtocol> = {
  chat_compat: 'chat', chat_compat_responses: 'responses', messages_api: 'messages', genai: 'gemini', cloud_ai: 'vertex',
};
const MODEL = 'fixture-model';
const VERTEX_DOCS = 'Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/gemini';

const image = (data: string) => ({ type: 'image' as const, data, mediaType: 'image/png' });
const call = (id: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'text', text: 'Reading.' }, { type: 'tool_use', id, name: 'read_file', input: { path: 'a.ts' } }] });
const result = (id: string): ModelMessage => ({ role: 'tool', content: [{ type: 'tool_result', tool_use_id: id, name: 'read_file', content: 'contents' }] });
const user = (...content: Array<{ type: 'text'; text: string } | ReturnType<typeof image>>): ModelMessage => ({ role: 'user', content });
const text = (s: string) => ({ type: 'text' as const, text: s });

async function fixture(t: ExecutionContext, model: Partial<FixtureModel> = {}, opts: FixtureOptions = {}): Promise<FixtureLlm> {
  const f = await fixtureLlm(t, { models: { [MODEL]: model }, ...opts });
  f.setScript(scripts.helloText);
  return f;
}

/** Sends `req`; checks the refusal, the provider body (sent again, raw) and that the scripted reply is still there. */
async function refused(t: ExecutionContext, f: FixtureLlm, type: (typeof TYPES)[number], req: ModelRequest, rule: FixtureRule, message: string | ((body: any) => string)) {
  const c = await collect(fixtureClient(f.url, type), req);
  const sent = f.requests[0]!;
  const expected = typeof message === 'string' ? message : message(sent.body);
  // A window refusal is the wire's context_overflow (the engine compacts and retries); the others a plain bad request.
  const kind = rule === 'context_window' ? 'context_overflow' : 'bad_request';
  t.like(c.error, { kind, status: 400, message: expected }, 'the wire client surfaces the provider message');
  t.like(sent.refusal, { rule, status: 400, message: expected, protocol: PROTOCOL[type], model: MODEL });
  t.is(await sent.outcome, 'refused');
  t.deepEqual(f.refusals.map((r) => r.rule), [rule]);
  await rawBody(t, f, PROTOCOL[type], sent.path, sent.body, expected);
  f.setModel(MODEL, DEFAULT_MODEL);
  t.is((await collect(fixtureClient(f.url, type), userSays('hi'))).text, 'Hello, world', 'the refused request took no scripted reply');
}

/** The provider's own error body, as a raw client sees it. */
async function rawBody(t: ExecutionContext, f: FixtureLlm, protocol: FixtureProtocol, path: string, body: unknown, message: string) {
  const res = await fetch(f.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (protocol === 'responses' && res.status === 200) {
    const events = (await res.text()).split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
    t.deepEqual(events.map((e) => e.type), ['response.created', 'response.in_progress', 'error', 'response.failed']);
    t.like(events[2], { sequence_number: 2, error: { type: 'invalid_request_error', code: 'context_length_exceeded', param: 'input', message } });
    t.like(events[3], { response: { status: 'failed', error: { code: 'context_length_exceeded', message } } });
    return;
  }
  t.is(res.status, 400);
  const json = await res.json();
  if (protocol === 'messages') t.like(json, { type: 'error', error: { type: 'invalid_request_error', message } });
  else if (protocol === 'chat' || protocol === 'responses') t.like(json, { error: { type: 'invalid_request_error', message } });
  else t.like(json, { error: { code: 400, status: 'INVALID_ARGUMENT', message } });
}

for (const type of TYPES) {
  test(`${type}: a valid request (tool call answered, image, thinking) passes and plays the script`, async (t) => {
    const f = await fixture(t);
    const c = await collect(fixtureClient(f.url, type), {
      system: 'You help.', thinking: { enabled: true, effort: 'high' },
      messages: [user(text('look'), image(pngBase64(640, 480))), call('call_1'), result('call_1'), user(text('and then?'))],
    });
    t.is(c.error, undefined);
    t.is(c.text, 'Hello, world');
    t.deepEqual(f.refusals, []);
    t.is(await f.requests[0]!.outcome, 'completed');
  });

  test(`${type}: tool_pairing: a tool call without its result`, async (t) => {
    const unanswered: Case = {
      chat_compat: "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1",
      chat_compat_responses: 'No tool output found for function call call_1.',
      messages_api: 'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: call_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
      genai: 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
      cloud_ai: 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
      svc: '',
    };
    const f = await fixture(t);
    await refused(t, f, type, { messages: [user(text('hi')), call('call_1'), user(text('go on'))] }, 'tool_pairing', unanswered[type]);
  });

  test(`${type}: tool_pairing: a tool result without its call`, async (t) => {
    const orphan: Case = {
      chat_compat: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
      chat_compat_responses: 'No tool call found for function call output with call_id call_9.',
      messages_api: 'messages.0.content.1: unexpected `tool_use_id` found in `tool_result` blocks: call_9. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
      genai: 'Please ensure that function response turn comes immediately after a function call turn.',
      cloud_ai: 'Please ensure that function response turn comes immediately after a function call turn.',
      svc: '',
    };
    const f = await fixture(t);
    await refused(t, f, type, { messages: [user(text('hi')), result('call_9')] }, 'tool_pairing', orphan[type]);
  });

  test(`${type}: context_window: input over the model's window`, async (t) => {
    const f = await fixture(t, { context_window: 1000 });
    const n = (body: unknown) => estimateInputTokens(PROTOCOL[type], body);
    const over: Record<WireType, (body: any) => string> = {
      chat_compat: (b) => `This model's maximum context length is 1000 tokens. However, your messages resulted in ${n(b)} tokens. Please reduce the length of the messages.`,
      chat_compat_responses: () => 'Your input exceeds the context window of this model. Please adjust your input and try again.',
      messages_api: (b) => `prompt is too long: ${n(b)} tokens > 1000 maximum`,
      genai: (b) => `The input token count (${n(b)}) exceeds the maximum number of tokens allowed (1000).`,
      cloud_ai: (b) => `The input token count (${n(b)}) exceeds the maximum number of tokens allowed (1000).`,
      svc: () => '',
    };
    await refused(t, f, type, userSays('x'.repeat(8000)), 'context_window', over[type]);
    t.true(n(f.requests[0]!.body) > 2000);
  });

  test(`${type}: image_in: an image for a model without image input`, async (t) => {
    const noImages: Case = {
      chat_compat: 'Invalid content type. image_url is only supported by certain models.',
      chat_compat_responses: 'Invalid content type. input_image is only supported by certain models.',
      messages_api: `'${MODEL}' does not support image input.`,
      genai: `Image input modality is not enabled for models/${MODEL}`,
      cloud_ai: `Image input modality is not enabled for models/${MODEL}`,
      svc: '',
    };
    const f = await fixture(t, { image_in: false });
    await refused(t, f, type, { messages: [user(text('see'), image(pngBase64(10, 10)))] }, 'image_in', noImages[type]);
  });

  test(`${type}: reasoning: thinking parameters for a model without thinking`, async (t) => {
    const noThinking: Case = {
      chat_compat: "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
      chat_compat_responses: "Unsupported parameter: 'reasoning.effort' is not supported with this model.",
      messages_api: `'${MODEL}' does not support thinking.`,
      genai: `Thinking is not enabled for models/${MODEL}`,
      cloud_ai: `Unable to submit request because thinking_level is not supported by this model.. ${VERTEX_DOCS}`,
      svc: '',
    };
    const f = await fixture(t, { thinking: false });
    await refused(t, f, type, { ...userSays('think'), thinking: { enabled: true, effort: 'high' } }, 'reasoning', noThinking[type]);
  });

  test(`${type}: a rule listed in lenient is not enforced`, async (t) => {
    const f = await fixture(t, { thinking: false }, { lenient: ['reasoning'] });
    const c = await collect(fixtureClient(f.url, type), { ...userSays('think'), thinking: { enabled: true, effort: 'high' } });
    t.is(c.text, 'Hello, world');
    t.deepEqual(f.refusals, []);
  });
}

test('messages_api: image_limits: a side over 8000 px', async (t) => {
  const f = await fixture(t);
  await refused(t, f, 'messages_api', { messages: [user(text('see'), image(pngBase64(9000, 10)))] }, 'image_limits',
    'messages.0.content.1.image.source.base64.data: At least one of the image dimensions exceed max allowed size: 8000 pixels');
});

test('messages_api: image_limits: more than 20 images, one over 2000 px (20 such images pass)', async (t) => {
  const f = await fixture(t);
  const wide = image(pngBase64(2100, 10));
  const twenty = await collect(fixtureClient(f.url, 'messages_api'), { messages: [user(text('see'), ...Array(20).fill(wide))] });
  t.is(twenty.text, 'Hello, world');
  f.setScript(scripts.helloText);
  const c = await collect(fixtureClient(f.url, 'messages_api'), { messages: [user(text('see'), ...Array(21).fill(wide))] });
  t.like(c.error, { status: 400, message: 'messages.0.content.1.image.source.base64.data: At least one of the image dimensions exceed max allowed size for many-image requests: 2000 pixels' });
  t.deepEqual(f.refusals.map((r) => r.rule), ['image_limits']);
});

test('messages_api: image_limits: base64 over 5 MB', async (t) => {
  const f = await fixture(t);
  const data = pngBase64(2000, 2000, { stored: true });
  await refused(t, f, 'messages_api', { messages: [user(text('see'), image(data))] }, 'image_limits',
    `messages.0.content.1.image.source.base64: image exceeds 5 MB maximum: ${data.length} bytes > 5242880 bytes`);
});

test('messages_api: context_window: input plus max_tokens over the window', async (t) => {
  const f = await fixture(t, { context_window: 3000 });
  const n = (b: any) => estimateInputTokens('messages', b);
  await refused(t, f, 'messages_api', { ...userSays('x'.repeat(8000)), maxOutputTokens: 1000 }, 'context_window',
    (b) => `input length and \`max_tokens\` exceed context limit: ${n(b)} + 1000 > 3000, decrease input length or \`max_tokens\` and try again`);
});

test('chat_compat: context_window: the requested completion counts too', async (t) => {
  const f = await fixture(t, { context_window: 3000 });
  const n = (b: any) => estimateInputTokens('chat', b);
  await refused(t, f, 'chat_compat', { ...userSays('x'.repeat(8000)), maxOutputTokens: 1000 }, 'context_window',
    (b) => `This model's maximum context length is 3000 tokens. However, you requested ${n(b) + 1000} tokens (${n(b)} in the messages, 1000 in the completion). Please reduce the length of the messages or completion.`);
});

test('chat_compat and chat_compat_responses: image_limits: an image over 20 MB', async (t) => {
  const data = pngBase64(4600, 4600, { stored: true });
  const bytes = Buffer.byteLength(data, 'base64');
  for (const type of ['chat_compat', 'chat_compat_responses'] as const) {
    const f = await fixture(t);
    await refused(t, f, type, { messages: [user(text('see'), image(data))] }, 'image_limits',
      `Invalid image: ${bytes} bytes exceeds the 20971520-byte (20 MB) limit per image.`);
  }
});

test('genai and cloud_ai: image_limits: a request over 20 MB', async (t) => {
  const data = pngBase64(4600, 4600, { stored: true });
  for (const type of ['genai', 'cloud_ai'] as const) {
    const f = await fixture(t);
    await refused(t, f, type, { messages: [user(text('see'), image(data))] }, 'image_limits', 'Request payload size exceeds the limit: 20971520 bytes.');
  }
});

test('the token estimate counts images by their header dimensions, not their bytes', (t) => {
  const body = (w: number, h: number) => ({ model: MODEL, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: pngBase64(w, h) } }] }] });
  // 4 tokens of framing; 1500 x 1000 / 750 = 2000.
  t.is(estimateInputTokens('messages', body(1500, 1000)), 2004);
  t.is(estimateInputTokens('messages', body(3000, 2000)), 8004);
  t.is(estimateInputTokens('chat', { messages: [{ role: 'user', content: 'abcd'.repeat(100) }] }), 104);
});

const toolNamed = (name: string) => ({ name, description: 'x', inputSchema: { type: 'object', properties: {} } });
const LONG = `mcp__${'s'.repeat(70)}__read`;

test('chat_compat and chat_compat_responses: tool_names: a function name over 64 characters, or with a dot', async (t) => {
  for (const [type, param] of [['chat_compat', 'tools[1].function.name'], ['chat_compat_responses', 'tools[1].name']] as const) {
    const long = await fixture(t);
    await refused(t, long, type, { messages: [user(text('hi'))], tools: [toolNamed('Read'), toolNamed(LONG)] }, 'tool_names',
      `Invalid '${param}': string too long. Expected a string with maximum length 64, but got a string with length ${LONG.length} instead.`);
    const dotted = await fixture(t);
    await refused(t, dotted, type, { messages: [user(text('hi'))], tools: [toolNamed('Read'), toolNamed('fs.read')] }, 'tool_names',
      `Invalid '${param}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`);
  }
});

test('messages_api: tool_names: a custom tool name over 128 characters (128 pass)', async (t) => {
  const f = await fixture(t);
  const ok = await collect(fixtureClient(f.url, 'messages_api'), { messages: [user(text('hi'))], tools: [toolNamed('x'.repeat(128))] });
  t.is(ok.error, undefined, 'Anthropic takes names up to 128 characters');
  const g = await fixture(t);
  await refused(t, g, 'messages_api', { messages: [user(text('hi'))], tools: [toolNamed('x'.repeat(129))] }, 'tool_names',
    "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'");
});

test("genai and cloud_ai: tool_names: a name not starting with a letter or _, or over 64 characters, every one listed", async (t) => {
  const why = '[FIELD_INVALID] Invalid function name. Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.';
  for (const type of ['genai', 'cloud_ai'] as const) {
    const f = await fixture(t);
    const ok = await collect(fixtureClient(f.url, type), { messages: [user(text('hi'))], tools: [toolNamed('fs.read:v2'), toolNamed('_x'), toolNamed('x'.repeat(64))] });
    t.is(ok.error, undefined, 'Google takes dots, colons and a leading _ up to 64 characters');
    const g = await fixture(t);
    await refused(t, g, type, { messages: [user(text('hi'))], tools: [toolNamed('Read'), toolNamed('9lives'), toolNamed(LONG)] }, 'tool_names',
      `The GenerateContentRequest proto is invalid:\n  * tools[0].function_declarations[1].name: ${why}\n  * tools[0].function_declarations[2].name: ${why}`);
  }
});

test("every protocol takes the daemon's tool names: the built-ins and MCP tools' exposed names", async (t) => {
  const mcp = [['docs.site', 'search'], ['my server', 'get.page/2'], ['9lives', 'x'], ['s'.repeat(80), 't.'.repeat(40)]].map(([s, n]) => exposedName(s!, n!));
  const tools = [...BUILTIN_TOOLS.map((d) => d.name), ...mcp].map(toolNamed);
  for (const type of TYPES) {
    const f = await fixture(t);
    const c = await collect(fixtureClient(f.url, type), { messages: [user(text('hi'))], tools });
    t.is(c.error, undefined, `${type} refused one of ${tools.map((x) => x.name).join(', ')}`);
    t.deepEqual(f.refusals, []);
  }
});
