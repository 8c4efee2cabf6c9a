import test from 'ava';
import { DEFAULT_MODEL, estimateInputTokens, scripts, type FixtureProtocol } from '../../fixtures/llm/index.ts';
import { BASE_PATH } from '../../fixtures/llm/wire-clients.ts';
import type { WireType } from '../../src/providers/wire/types.ts';
import { prompt, startEngine, turnEnded, type EngineEnv } from '../helpers/engine.ts';
import { MODEL } from '../helpers/llm.ts';
import { pngBase64 } from '../helpers/png.ts';

/**
 * The daemon against the strict fixture: a normal prompt passes on every wire protocol, and when
 * the upstream refuses (the model is smaller, or lacks thinking or image input, although the
 * daemon's config says otherwise) the turn fails with the provider's own message.
 */

const PROTOCOLS: Array<[WireType, FixtureProtocol]> = [
  ['chat_compat', 'chat'], ['chat_compat_responses', 'responses'], ['messages_api', 'messages'], ['genai', 'gemini'], ['cloud_ai', 'vertex'],
];
const UPSTREAM = 'fixture-model';

function config(url: string, type: WireType): string {
  return `default_model = "${MODEL}"
auto_session_title = false

[providers.fx]
type = "${type}"
base_url = "${url}${BASE_PATH[type]}"
api_key = "sk-test"

[models."${MODEL}"]
provider = "fx"
model = "${UPSTREAM}"
max_context_size = 100000
capabilities = ["thinking", "image_in"]
`;
}

/** Runs one prompt and expects its turn to fail with the message of the refusal it caused. */
async function failsWithRefusal(t: Parameters<typeof startEngine>[0], env: EngineEnv, n: number, body: Record<string, unknown> | string, rule: string) {
  const before = env.llm.refusals.length;
  await prompt(env, body);
  const ended = await turnEnded(env, n, 60_000);
  const refusal = env.llm.refusals[before];
  t.is(refusal?.rule, rule as never);
  t.is(ended.payload.reason, 'failed');
  t.is(ended.payload.error.message, refusal?.message, 'the turn fails with the provider message');
  t.is(ended.payload.error.status, 400);
}

for (const [type, protocol] of PROTOCOLS) {
  test(`${type}: a prompt passes; refused requests fail their turn with the provider's message and take no reply`, async (t) => {
    const started = await startEngine(t, { config: (url) => config(url, type) });
    const { llm } = started;
    llm.setScript(scripts.helloText, scripts.helloText);

    await prompt(started, 'hello');
    t.is((await turnEnded(started, 1, 60_000)).payload.reason, 'completed');
    t.deepEqual(llm.refusals, [], 'a normal request passes every rule');

    llm.setModel(UPSTREAM, { thinking: false });
    await failsWithRefusal(t, started, 2, { content: [{ type: 'text', text: 'think hard' }], thinking: 'high' }, 'reasoning');

    llm.setModel(UPSTREAM, { thinking: true, image_in: false });
    const png = pngBase64(64, 48);
    await failsWithRefusal(t, started, 3, { content: [{ type: 'text', text: 'look' }, { type: 'image', source: { kind: 'base64', media_type: 'image/png', data: png } }] }, 'image_in');

    // A window just above the last request: the next prompt's 8,000 more characters do not fit, even after the
    // compaction the refusal triggers (the prompt itself stays): refused, compacted once, refused again, failed.
    const last = llm.requests.at(-1)!.body;
    const max = Number(last.max_tokens ?? last.max_completion_tokens ?? 0);
    llm.setModel(UPSTREAM, { ...DEFAULT_MODEL, context_window: estimateInputTokens(protocol, last) + max + 500 });
    llm.setScript({ events: [{ text: 'SUMMARY' }] }, scripts.helloText);
    const before = llm.refusals.length;
    await prompt(started, 'x'.repeat(8000));
    const ended = (await turnEnded(started, 4, 60_000)).payload;
    t.deepEqual(llm.refusals.slice(before).map((r) => r.rule), ['context_window', 'context_window']);
    t.is(ended.reason, 'failed');
    t.like(ended.error, { kind: 'context_overflow', status: 400 });
    t.true(ended.error.message.endsWith(llm.refusals.at(-1)!.message), 'the turn fails with the provider message');

    llm.setModel(UPSTREAM, DEFAULT_MODEL);
    await prompt(started, 'still there?');
    t.is((await turnEnded(started, 5, 60_000)).payload.reason, 'completed', 'the scripted reply waited for a request that passes');
    t.is(llm.requests.filter((r) => !r.refusal).length, 3, 'the prompts that passed and the summary request');
  });
}
