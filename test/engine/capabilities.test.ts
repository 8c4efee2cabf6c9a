import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, turnEnded, type EngineEnv } from '../helpers/engine.ts';
import { imagesIn, makePng, PROTOCOLS, protocolConfig, reasoningParams } from '../helpers/images.ts';

/** Images are decoded and encoded in the turn, on a machine other runs load too: a generous bound. */
const turnDone = (env: EngineEnv, n = 1) => turnEnded(env, n, 120_000);

// Part B "models": `capabilities` decide what a model is sent. Thinking parameters only with
// `thinking` (always with `always_thinking`), images only with `image_in`, videos only with `video_in`.

const EFFORT = '[thinking]\neffort = "high"';
/** The fixture's upstream model without thinking or image input: it refuses either with the provider's 400. */
const NO_THINKING_NO_IMAGES = { models: { 'fixture-model': { thinking: false, image_in: false } } };
const image = (bytes: Buffer) => ({ type: 'image', source: { kind: 'base64', media_type: 'image/png', data: bytes.toString('base64') } });
const video = { type: 'video', source: { kind: 'base64', media_type: 'video/mp4', data: Buffer.from('not really a video, but bytes').toString('base64') } };

for (const { wire } of PROTOCOLS) {
  test(`${wire}: a model that declares neither thinking nor image_in gets no reasoning parameter and a note for the image; the turn works`, async (t) => {
    // The upstream refuses both, as the real providers do (the strict fixture).
    const env = await startEngine(t, { config: (url) => protocolConfig(url, wire, [], EFFORT), fixture: NO_THINKING_NO_IMAGES });
    env.llm.setScript(scripts.helloText, scripts.helloText);
    const r = await prompt(env, { content: [{ type: 'text', text: 'look' }, image(await makePng(64, 48))], thinking: 'high' });
    t.is(r.code, 0);
    t.is((await turnDone(env)).payload.reason, 'completed');
    const body = env.llm.requests[0]!.body;
    t.deepEqual(reasoningParams(body), []);
    t.deepEqual(await imagesIn(body), []);
    t.true(JSON.stringify(body).includes('[image omitted: model has no image input]'));
    t.is((await prompt(env, 'again')).code, 0);
    t.is((await turnDone(env, 2)).payload.reason, 'completed');
    t.deepEqual(reasoningParams(env.llm.requests[1]!.body), []);
    t.deepEqual(env.llm.refusals, []);
  });

  test(`${wire}: a model that declares thinking and image_in gets both`, async (t) => {
    const env = await startEngine(t, { config: (url) => protocolConfig(url, wire, ['thinking', 'image_in'], EFFORT) });
    env.llm.setScript(scripts.helloText);
    t.is((await prompt(env, { content: [{ type: 'text', text: 'look' }, image(await makePng(64, 48))] })).code, 0);
    t.is((await turnDone(env)).payload.reason, 'completed');
    const body = env.llm.requests[0]!.body;
    t.not(reasoningParams(body).length, 0);
    t.like((await imagesIn(body))[0], { width: 64, height: 48 });
  });
}

for (const wire of ['chat_compat', 'messages_api'] as const) {
  test(`${wire}: always_thinking keeps thinking on when the prompt turns it off`, async (t) => {
    const env = await startEngine(t, { config: (url) => protocolConfig(url, wire, ['always_thinking'], EFFORT) });
    env.llm.setScript(scripts.helloText, scripts.helloText);
    t.is((await prompt(env, { content: [{ type: 'text', text: 'hi' }], thinking: 'off' })).code, 0);
    t.is((await turnDone(env)).payload.reason, 'completed');
    const body = env.llm.requests[0]!.body;
    if (wire === 'messages_api') t.like(body.thinking, { type: 'enabled' });
    else t.is(body.reasoning_effort, 'high', '[thinking] effort, not off');
  });
}

test('messages_api: a thinking model with [thinking] enabled = false is sent thinking disabled', async (t) => {
  const env = await startEngine(t, { config: (url) => protocolConfig(url, 'messages_api', ['thinking'], '[thinking]\nenabled = false') });
  env.llm.setScript(scripts.helloText);
  t.is((await prompt(env, 'hi')).code, 0);
  await turnDone(env);
  t.deepEqual(env.llm.requests[0]!.body.thinking, { type: 'disabled' });
});

test('a model without image_in gets a note in place of a Read image', async (t) => {
  const env = await startEngine(t, { config: (url) => protocolConfig(url, 'chat_compat', []), fixture: NO_THINKING_NO_IMAGES });
  await writeFile(path.join(env.s.sessions.get(env.sid)!.cwd, 'shot.png'), await makePng(120, 80));
  env.llm.setScript({ events: [{ tool_call: { id: 'c1', name: 'Read', args: { file_path: 'shot.png' } } }] }, scripts.helloText);
  t.is((await prompt(env, 'look')).code, 0);
  t.is((await turnDone(env)).payload.reason, 'completed');
  const body = env.llm.requests[1]!.body;
  t.deepEqual(await imagesIn(body), []);
  const tool = body.messages.find((m: any) => m.role === 'tool');
  t.regex(tool.content, /^Image shot\.png: PNG, 120x80 px/);
  t.true(tool.content.includes('[image omitted: model has no image input]'));
});

for (const wire of ['chat_compat', 'genai'] as const) {
  test(`${wire}: a video goes only to a video_in model; others get a note`, async (t) => {
    const env = await startEngine(t, { config: (url) => protocolConfig(url, wire, ['video_in']) });
    env.llm.setScript(scripts.helloText);
    t.is((await prompt(env, { content: [{ type: 'text', text: 'watch' }, video] })).code, 0);
    t.is((await turnDone(env)).payload.reason, 'completed');
    const sent = JSON.stringify(env.llm.requests[0]!.body);
    t.true(sent.includes(video.source.data), 'the video bytes are sent');
    t.true(wire === 'chat_compat' ? sent.includes('"video_url"') : sent.includes('"mimeType":"video/mp4"'));

    const plain = await startEngine(t, { config: (url) => protocolConfig(url, wire, ['image_in']) });
    plain.llm.setScript(scripts.helloText);
    t.is((await prompt(plain, { content: [{ type: 'text', text: 'watch' }, video] })).code, 0);
    t.is((await turnDone(plain)).payload.reason, 'completed');
    const withheld = JSON.stringify(plain.llm.requests[0]!.body);
    t.false(withheld.includes(video.source.data));
    t.true(withheld.includes('[video omitted: model has no video input]'));
  });
}

test('the session reports thinking off for a model that cannot think', async (t) => {
  const env = await startEngine(t, { config: (url) => protocolConfig(url, 'chat_compat', []), fixture: NO_THINKING_NO_IMAGES });
  env.llm.setScript(scripts.helloText);
  t.is((await prompt(env, { content: [{ type: 'text', text: 'hi' }], thinking: 'high' })).code, 0);
  await turnDone(env);
  const started = (await journal(env)).find((e) => e.type === 'turn.started')!;
  t.is(started.payload.thinking, 'off');
});
