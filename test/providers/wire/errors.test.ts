import test from 'ava';
import { scripts, type FixtureLlm } from '../../../fixtures/llm/index.ts';
import { collect, userSays } from '../../../fixtures/llm/collect.ts';
import { fixtureClient } from '../../../fixtures/llm/wire-clients.ts';
import { createModelClient } from '../../../src/providers/wire/factory.ts';
import { WIRE_TYPES, type ModelStreamPart, type WireError } from '../../../src/providers/wire/types.ts';
import { until } from '../../helpers/wait.ts';
import { fixtureLlm } from '../../helpers/llm.ts';

const MODEL = { model: 'gemini-3-pro' };

for (const type of WIRE_TYPES) {
  const errorCases: Array<[string, Parameters<FixtureLlm['setScript']>[0], Partial<WireError>]> = [
    ['429 is transient with its status and retry-after', scripts.rateLimited, { kind: 'transient', status: 429, retry_after_ms: 2000 }],
    ['a quota 429 is quota (not retried)', scripts.quotaExhausted, { kind: 'quota', status: 429 }],
    ['5xx is transient', scripts.serverError, { kind: 'transient', status: 503 }],
    ['401 is auth', scripts.unauthorized, { kind: 'auth', status: 401 }],
    ['400 is bad_request', scripts.badRequest, { kind: 'bad_request', status: 400 }],
  ];
  for (const [name, reply, expected] of errorCases) {
    test(`${type}: ${name}`, async (t) => {
      const f = await fixtureLlm(t);
      f.setScript(reply);
      const c = await collect(fixtureClient(f.url, type, {}, MODEL), userSays('hi'));
      t.like(c.error, expected);
      t.is(c.finish, undefined);
      t.is(c.parts.at(-1)?.type, 'error');
    });
  }

  test(`${type}: 429 then success: the retry by the caller streams normally`, async (t) => {
    const f = await fixtureLlm(t);
    f.setScript(scripts.rateLimited, scripts.helloText);
    const client = fixtureClient(f.url, type, {}, MODEL);
    t.is((await collect(client, userSays('hi'))).error?.kind, 'transient');
    const second = await collect(client, userSays('hi'));
    t.is(second.text, 'Hello, world');
    t.is(f.requests.length, 2);
  });

  test(`${type}: a hang is cancelled by abort and the fixture sees the socket close`, async (t) => {
    const f = await fixtureLlm(t);
    f.setScript(scripts.hang);
    const ac = new AbortController();
    const run = collect(fixtureClient(f.url, type, {}, MODEL), userSays('hi'), ac.signal);
    await until(() => f.requests.length > 0);
    ac.abort();
    const c = await run;
    t.is(c.error?.kind, 'aborted');
    t.is(await f.requests[0]!.outcome, 'aborted');
  });

  test(`${type}: abort mid-stream cancels the upstream request`, async (t) => {
    const f = await fixtureLlm(t);
    f.setScript({ events: Array.from({ length: 50 }, () => ({ text: 'x' })), delay_ms: 50 });
    const ac = new AbortController();
    const parts: ModelStreamPart[] = [];
    for await (const p of fixtureClient(f.url, type, {}, MODEL).stream(userSays('hi'), ac.signal)) {
      parts.push(p);
      if (p.type === 'text-delta') ac.abort();
    }
    t.like(parts.at(-1), { type: 'error', error: { kind: 'aborted' } });
    t.false(parts.some((p) => p.type === 'finish'));
    t.is(await f.requests[0]!.outcome, 'aborted');
  });

  test(`${type}: a connection dropped mid-stream is transient`, async (t) => {
    const f = await fixtureLlm(t);
    f.setScript(scripts.droppedMidStream);
    const c = await collect(fixtureClient(f.url, type, {}, MODEL), userSays('hi'));
    t.is(c.error?.kind, 'transient');
    t.is(c.finish, undefined);
    t.is(await f.requests[0]!.outcome, 'dropped');
  });

  test(`${type}: a refused connection is transient`, async (t) => {
    // Port 1 (tcpmux) has no listener: a freed ephemeral port could be taken by another test's server meanwhile.
    const url = 'http://127.0.0.1:1';
    const c = await collect(fixtureClient(url, type, {}, MODEL), userSays('hi'));
    t.is(c.error?.kind, 'transient', JSON.stringify(c.parts).slice(0, 500));
  });
}

test('credentials never come from the process environment', (t) => {
  const saved = process.env.OPENAI_API_KEY;
  process.env.OPENAI_API_KEY = 'sk-shell';
  try {
    const err = t.throws(() => createModelClient({ type: 'chat_compat', base_url: 'http://127.0.0.1:9/v1' }, { model: 'm' }));
    t.regex(err!.message, /no API key/);
  } finally {
    if (saved === undefined) delete process.env.OPENAI_API_KEY;
    else process.env.OPENAI_API_KEY = saved;
  }
});

test('cloud_ai without an API key or a complete service account is rejected before any request', (t) => {
  const err = t.throws(() => createModelClient({ type: 'cloud_ai', env: { GOOGLE_CLIENT_EMAIL: 'a@b' } }, { model: 'gemini-3-pro' }));
  t.like(err, { name: 'WireConfigError', kind: 'auth' });
  t.regex(err!.message, /GOOGLE_VERTEX_PROJECT/);
  t.notThrows(() => createModelClient({ type: 'cloud_ai', api_key: 'k' }, { model: 'gemini-3-pro' }));
});

test('an unknown provider type is rejected before any request', (t) => {
  const err = t.throws(() => createModelClient({ type: 'carrier_pigeon', api_key: 'k' }, { model: 'm' }));
  t.regex(err!.message, /unknown provider type/);
});

for (const type of WIRE_TYPES) {
  test(`${type}: an error event inside the stream ends it with a classified error`, async (t) => {
    const f = await fixtureLlm(t);
    f.setScript(scripts.overloadedMidStream);
    const c = await collect(fixtureClient(f.url, type, {}, MODEL), userSays('hi'));
    t.like(c.error, { kind: 'transient', message: 'Overloaded' });
    t.is(c.finish, undefined);
  });
}

test('a timeout composed into the signal is transient, not a user abort', async (t) => {
  const f = await fixtureLlm(t);
  f.setScript(scripts.hang);
  const c = await collect(fixtureClient(f.url, 'chat_compat'), userSays('hi'), AbortSignal.timeout(100));
  t.like(c.error, { kind: 'transient', message: 'request timed out' });
});

/** Each protocol's own answer to a request over the model's context window (status, code, message). */
const OVERFLOW: Record<(typeof WIRE_TYPES)[number], { status: number; code?: string; message: string }> = {
  chat_compat: { status: 400, code: 'context_length_exceeded', message: 'This model\'s maximum context length is 32000 tokens. However, your messages resulted in 40000 tokens. Please reduce the length of the messages.' },
  svc: { status: 400, code: 'context_length_exceeded', message: 'This model\'s maximum context length is 32000 tokens. However, your messages resulted in 40000 tokens. Please reduce the length of the messages.' },
  chat_compat_responses: { status: 400, code: 'context_length_exceeded', message: 'Your input exceeds the context window of this model. Please adjust your input and try again.' },
  messages_api: { status: 400, message: 'prompt is too long: 40000 tokens > 32000 maximum' },
  genai: { status: 400, message: 'The input token count (40000) exceeds the maximum number of tokens allowed (32000).' },
  cloud_ai: { status: 400, message: 'The input token count (40000) exceeds the maximum number of tokens allowed (32000).' },
};

/** Gateways' phrasings (vLLM, Bedrock, Moonshot, a proxy answering 500, Anthropic's max_tokens form, a body-size 413). */
const GATEWAY_OVERFLOW: Array<{ status: number; message: string }> = [
  { status: 400, message: 'This model\'s maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion).' },
  { status: 400, message: 'Input is too long for requested model.' },
  { status: 400, message: 'Invalid request: Your request exceeded model token limit: 8192' },
  { status: 500, message: 'litellm.ContextWindowExceededError: context length exceeded' },
  { status: 400, message: 'input length and `max_tokens` exceed context limit: 30000 + 4096 > 32000, decrease input length or `max_tokens` and try again' },
  { status: 413, message: 'Request exceeds the maximum allowed number of bytes.' },
];

for (const type of WIRE_TYPES) {
  test(`${type}: the provider's context-length error is context_overflow, not a plain bad_request`, async (t) => {
    const f = await fixtureLlm(t);
    const o = OVERFLOW[type];
    f.setScript({ kind: 'error', ...o }, ...GATEWAY_OVERFLOW.map((g) => ({ kind: 'error' as const, ...g })), scripts.badRequest);
    const client = fixtureClient(f.url, type, {}, MODEL);
    t.like((await collect(client, userSays('hi'))).error, { kind: 'context_overflow', status: o.status, message: o.message });
    for (const g of GATEWAY_OVERFLOW) t.like((await collect(client, userSays('hi'))).error, { kind: 'context_overflow', status: g.status }, g.message);
    // Any other 400 stays a bad request.
    t.like((await collect(client, userSays('hi'))).error, { kind: 'bad_request', status: 400 });
  });
}

test('messages_api: a context-length error inside the stream is context_overflow', async (t) => {
  const f = await fixtureLlm(t);
  f.setScript({ events: [{ text: 'x' }], stream_error: { after: 1, message: 'prompt is too long: 40000 tokens > 32000 maximum', code: 'invalid_request_error' } });
  t.like((await collect(fixtureClient(f.url, 'messages_api', {}, MODEL), userSays('hi'))).error, { kind: 'context_overflow' });
});
