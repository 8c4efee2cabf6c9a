import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, turnEnded, type EngineEnv } from '../helpers/engine.ts';
import { rawGet, uploadFile } from '../helpers/files.ts';
import { imagesIn, makePng, PROTOCOLS, protocolConfig } from '../helpers/images.ts';

/** Images are decoded and encoded in the turn, on a machine other runs load too: a generous bound. */
const turnDone = (env: EngineEnv, n = 1) => turnEnded(env, n, 120_000);

const b64 = (bytes: Buffer, media_type = 'image/png') => ({ type: 'image', source: { kind: 'base64', media_type, data: bytes.toString('base64') } });
const IMAGE_MODEL = ['thinking', 'image_in'];

for (const { wire } of PROTOCOLS) {
  test(`${wire}: a 4000x3000 screenshot in a prompt reaches the model at 2000x1500; the stored media keeps the original`, async (t) => {
    const env = await startEngine(t, { config: (url) => protocolConfig(url, wire, IMAGE_MODEL) });
    const shot = await makePng(4000, 3000);
    env.llm.setScript(scripts.helloText, scripts.helloText);
    const r = await prompt(env, { content: [{ type: 'text', text: 'what is on my screen?' }, b64(shot)] });
    t.is(r.code, 0);
    t.is((await turnDone(env)).payload.reason, 'completed');
    const sent = await imagesIn(env.llm.requests[0]!.body);
    t.is(sent.length, 1);
    t.like(sent[0], { width: 2000, height: 1500 });

    const file = r.data.content[1].source.file_id;
    const original = await rawGet(env.s, `/api/v1/sessions/${env.sid}/media/${file}`);
    t.is(original.status, 200);
    t.deepEqual(original.bytes, shot, 'the download is the original');

    // The next step re-sends the history's image, fitted the same way.
    t.is((await prompt(env, 'and now?')).code, 0);
    t.is((await turnDone(env, 2)).payload.reason, 'completed');
    t.like((await imagesIn(env.llm.requests[1]!.body))[0], { width: 2000, height: 1500 });
  });
}

test('an uploaded 3000x1000 image is sent at 2000x667; the upload and its session copy keep the original bytes', async (t) => {
  const env = await startEngine(t);
  const wide = await makePng(3000, 1000);
  const up = await uploadFile(env.s, wide, 'wide.png', 'image/png');
  env.llm.setScript(scripts.helloText);
  t.is((await prompt(env, { content: [{ type: 'image', source: { kind: 'file', file_id: up.id } }] })).code, 0);
  t.is((await turnDone(env)).payload.reason, 'completed');
  t.like((await imagesIn(env.llm.requests[0]!.body))[0], { width: 2000, height: 667 });
  t.deepEqual((await rawGet(env.s, `/api/v1/files/${up.id}`)).bytes, wide);
  t.deepEqual((await rawGet(env.s, `/api/v1/sessions/${env.sid}/media/${up.id}`)).bytes, wide);
});

test('[image] max_edge_px sets the edge; an image within it is sent byte for byte', async (t) => {
  const env = await startEngine(t, { extraToml: '[image]\nmax_edge_px = 800' });
  const big = await makePng(1600, 1200);
  const small = await makePng(640, 480);
  env.llm.setScript(scripts.helloText);
  t.is((await prompt(env, { content: [b64(big), b64(small)] })).code, 0);
  t.is((await turnDone(env)).payload.reason, 'completed');
  const sent = await imagesIn(env.llm.requests[0]!.body);
  t.like(sent[0], { width: 800, height: 600 });
  t.like(sent[1], { width: 640, height: 480, bytes: small.length });
  t.true(JSON.stringify(env.llm.requests[0]!.body).includes(small.toString('base64')));
});

test('an image that cannot be decoded becomes a note; the turn and the next one work', async (t) => {
  const env = await startEngine(t);
  const fake = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(300, 7)]);
  env.llm.setScript(scripts.helloText, scripts.helloText);
  const r = await prompt(env, { content: [{ type: 'text', text: 'look' }, b64(fake)] });
  t.is(r.code, 0);
  t.is((await turnDone(env)).payload.reason, 'completed');
  const body = JSON.stringify(env.llm.requests[0]!.body);
  t.deepEqual(await imagesIn(env.llm.requests[0]!.body), []);
  t.regex(body, new RegExp(`\\[image ${r.data.content[1].source.file_id} not sent: not a decodable image\\]`));
  t.is((await prompt(env, 'again')).code, 0);
  t.is((await turnDone(env, 2)).payload.reason, 'completed');
});

test('messages_api: with more than 20 images in a request each is at most 2000 px, even when max_edge_px allows more', async (t) => {
  const env = await startEngine(t, { config: (url) => protocolConfig(url, 'messages_api', IMAGE_MODEL, '[image]\nmax_edge_px = 6000') });
  const tall = await makePng(1000, 3000);
  env.llm.setScript(scripts.helloText, scripts.helloText);
  t.is((await prompt(env, { content: [b64(tall)] })).code, 0);
  await turnDone(env);
  t.like((await imagesIn(env.llm.requests[0]!.body))[0], { width: 1000, height: 3000 }, 'one image: max_edge_px 6000 holds');
  t.is((await prompt(env, { content: Array.from({ length: 21 }, () => b64(tall)) })).code, 0);
  t.is((await turnDone(env, 2)).payload.reason, 'completed');
  t.deepEqual(env.llm.refusals, [], 'the strict fixture refused nothing');
  const sent = await imagesIn(env.llm.requests[1]!.body);
  t.is(sent.length, 22);
  t.true(sent.every((i) => i.width === 667 && i.height === 2000));
});

test('an image counts about 1600 tokens in the context estimate, not the length of its reference', async (t) => {
  const env = await startEngine(t, { extraToml: '[token_counting]\nstrategy = "estimated"' });
  env.llm.setScript(scripts.helloText, scripts.helloText);
  t.is((await prompt(env, 'hello')).code, 0);
  await turnDone(env);
  t.is((await prompt(env, { content: [{ type: 'text', text: 'hello' }, b64(await makePng(800, 600))] })).code, 0);
  await turnDone(env, 2);
  const steps = (await journal(env)).filter((e) => e.type === 'turn.step.completed').map((e) => e.payload.context_tokens);
  t.is(steps.length, 2);
  t.true(steps[1] - steps[0] >= 1600, `the image added ${steps[1] - steps[0]} tokens`);
});

test('messages_api: the provider\'s hard limits hold whatever [image] allows: 8000 px a side, 5 MB an image', async (t) => {
  const env = await startEngine(t, { config: (url) => protocolConfig(url, 'messages_api', IMAGE_MODEL, '[image]\nmax_edge_px = 12000') });
  const long = await makePng(9000, 600);
  const heavy = await makePng(1800, 1200, { noise: true });
  t.true(heavy.length * 4 / 3 > 5 * 1024 * 1024, 'the noise PNG is over 5 MB of base64');
  env.llm.setScript(scripts.helloText);
  t.is((await prompt(env, { content: [b64(long), b64(heavy)] })).code, 0);
  t.is((await turnDone(env)).payload.reason, 'completed');
  t.deepEqual(env.llm.refusals, [], 'the strict fixture refused nothing');
  const [a, b] = await imagesIn(env.llm.requests[0]!.body);
  t.like(a, { width: 8000, height: 533 });
  t.true(b!.bytes * 4 / 3 <= 5 * 1024 * 1024, `re-encoded to ${b!.bytes} bytes`);
});
