import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import sharp from 'sharp';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, turnEnded, YOLO, type EngineEnv } from '../helpers/engine.ts';
import { rawGet } from '../helpers/files.ts';
import { imagesIn, makePng, PROTOCOLS, protocolConfig } from '../helpers/images.ts';

/** Images are decoded and encoded in the turn, on a machine other runs load too: a generous bound. */
const turnDone = (env: EngineEnv, n = 1) => turnEnded(env, n, 120_000);

const cwdOf = (env: EngineEnv) => env.s.sessions.get(env.sid)!.cwd;

/** One turn whose model calls Read with each of `calls`; resolves to the tool.result payloads and the request after the calls. */
async function readCalls(env: EngineEnv, calls: Array<Record<string, unknown>>, n = 1) {
  const base = `r${n}_`;
  env.llm.setScript({ events: calls.map((args, i) => ({ tool_call: { id: `${base}${i}`, name: 'Read', args } })) }, scripts.helloText);
  const before = env.llm.requests.length;
  t0(await prompt(env, 'look at it'));
  const ended = await turnDone(env, n);
  const results = (await journal(env)).filter((e) => e.type === 'tool.result' && e.payload.tool_call_id.startsWith(base)).map((e) => e.payload);
  return { ended, results: calls.map((_, i) => results.find((r) => r.tool_call_id === `${base}${i}`)!), followUp: env.llm.requests[before + 1]! };
}

function t0(r: { code: number }) {
  if (r.code !== 0) throw new Error(JSON.stringify(r));
}

/** Where each protocol carries a tool result's image: inside the result where the protocol allows it, else right after it. */
const IMAGE_IN_RESULT: Record<string, (b: any) => boolean> = {
  chat_compat: (b) => {
    const i = b.messages.findIndex((m: any) => m.role === 'tool');
    return typeof b.messages[i].content === 'string' && b.messages[i + 1]?.role === 'user' && b.messages[i + 1].content.some((c: any) => c.type === 'image_url');
  },
  messages_api: (b) => b.messages.some((m: any) => Array.isArray(m.content) && m.content.some((c: any) => c.type === 'tool_result' && c.content.some((x: any) => x.type === 'image'))),
  chat_compat_responses: (b) => b.input.some((i: any) => i.type === 'function_call_output' && i.output.some((o: any) => o.type === 'input_image')),
  genai: (b) => b.contents.some((c: any) => c.parts.some((p: any) => p.functionResponse) && c.parts.some((p: any) => p.inlineData)),
};

for (const { wire } of PROTOCOLS) {
  test(`${wire}: the model calls Read on a 1200x800 PNG and the image is sent as an image`, async (t) => {
    const env = await startEngine(t, { config: (url) => protocolConfig(url, wire, ['image_in']) });
    const png = await makePng(1200, 800);
    await writeFile(path.join(cwdOf(env), 'shot.png'), png);
    const { ended, results, followUp } = await readCalls(env, [{ file_path: 'shot.png' }]);
    t.is(ended.payload.reason, 'completed');
    t.false(results[0].is_error);
    t.regex(results[0].content, /^Image shot\.png: PNG, 1200x800 px/);
    const sent = await imagesIn(followUp.body);
    t.is(sent.length, 1);
    t.like(sent[0], { width: 1200, height: 800 });
    t.true(IMAGE_IN_RESULT[wire]!(followUp.body), 'the image belongs to the tool result');
    const body = JSON.stringify(followUp.body);
    t.false(body.includes('\\ufffd') || body.includes('\ufffd'), 'no replacement characters');
    t.false(body.includes('IHDR'), 'no PNG bytes as text');
  });
}

test('Read of a PNG named .txt is still an image (magic bytes, not the extension); the tool result image is stored as session media', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const png = await makePng(300, 200);
  await writeFile(path.join(cwdOf(env), 'notes.txt'), png);
  const { results, followUp } = await readCalls(env, [{ file_path: 'notes.txt' }]);
  t.regex(results[0].content, /PNG, 300x200 px/);
  t.like((await imagesIn(followUp.body))[0], { width: 300, height: 200 });
  const toolMessage = (await journal(env)).find((e) => e.type === 'message.created' && e.payload.message.role === 'tool')!.payload.message;
  const [text, image] = toolMessage.content[0].content;
  t.is(text.type, 'text');
  t.like(image, { type: 'image', source: { kind: 'session_media', media_type: 'image/png' } });
  const served = await rawGet(env.s, `/api/v1/sessions/${env.sid}/media/${image.source.file_id}`);
  t.is(served.status, 200);
  t.deepEqual(served.bytes, png, 'an image within every bound is kept as it was read');
});

test('Read of a binary file gives a note with its type and size, never replacement characters', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const elf = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.from(Array.from({ length: 4000 }, (_, i) => (i * 31) % 256))]);
  const junk = Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 13) % 256));
  await writeFile(path.join(cwdOf(env), 'tool.bin'), elf);
  await writeFile(path.join(cwdOf(env), 'data.dat'), junk);
  await writeFile(path.join(cwdOf(env), 'latin.txt'), Buffer.from('caf\xe9 cr\xe8me\n', 'latin1'));
  const { results, followUp } = await readCalls(env, [{ file_path: 'tool.bin' }, { file_path: 'data.dat' }, { file_path: 'latin.txt' }, { file_path: 'latin.txt', region: { x: 0, y: 0, width: 5, height: 5 } }]);
  t.is(results[0].content, `[binary file tool.bin: application/x-elf, ${elf.length} bytes; not shown. Read shows text files and PNG, JPEG, GIF and WebP images.]`);
  t.regex(results[1].content, new RegExp(`^\\[binary file data\\.dat: application/octet-stream, ${junk.length} bytes; not shown`));
  t.is(results[2].content, '[not valid UTF-8: decoded as Latin-1]\n     1\tcafé crème');
  t.true(results[3].is_error);
  t.regex(results[3].content, /apply to image files only/);
  t.false(JSON.stringify(followUp.body).includes('\\ufffd'));
  t.false(JSON.stringify(followUp.body).includes('\ufffd'));
});

test('Read images stay within read_byte_budget; region and full-resolution read-backs are exempt', async (t) => {
  const env = await startEngine(t, { extraToml: `${YOLO}\n[image]\nread_byte_budget = 100000` });
  const noise = await makePng(1200, 800, { noise: true });
  t.true(noise.length > 1_000_000, 'the file itself is far over the budget');
  await writeFile(path.join(cwdOf(env), 'noise.png'), noise);
  const { results, followUp } = await readCalls(env, [
    { file_path: 'noise.png' },
    { file_path: 'noise.png', region: { x: 100, y: 100, width: 400, height: 300 } },
    { file_path: 'noise.png', full_resolution: true },
  ]);
  t.true(results.every((r) => !r.is_error));
  const [fitted, region, full] = await imagesIn(followUp.body);
  t.true(fitted!.bytes <= 100_000, `budgeted read: ${fitted!.bytes} bytes`);
  t.regex(results[0].content, /Scaled down|image\/jpeg/);
  t.like(region, { width: 400, height: 300 });
  t.true(region!.bytes > 100_000, 'the region read-back is not held to the budget');
  t.like(full, { width: 1200, height: 800 });
  t.true(full!.bytes > 100_000, 'the full-resolution read-back is not held to the budget');
  t.regex(results[2].content, /Shown at 1200x800 px/);
});

test('full_resolution lifts max_edge_px: a 3000x2000 PNG is read at 2000x1333 by default and at 3000x2000 on read-back', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  await writeFile(path.join(cwdOf(env), 'big.png'), await makePng(3000, 2000));
  const { results, followUp } = await readCalls(env, [{ file_path: 'big.png' }, { file_path: 'big.png', full_resolution: true }, { file_path: 'big.png', region: { x: 2500, y: 1500, width: 800, height: 800 } }]);
  t.regex(results[0].content, /PNG, 3000x2000 px/);
  t.regex(results[0].content, /Shown at 2000x1333 px/);
  t.regex(results[0].content, /region=\{x, y, width, height\}/);
  const [scaled, full, corner] = await imagesIn(followUp.body);
  t.like(scaled, { width: 2000, height: 1333 });
  t.like(full, { width: 3000, height: 2000 });
  t.like(corner, { width: 500, height: 500 }, 'the region is clipped to the image');
});

test('a JPEG with EXIF orientation is read upright', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const jpeg = await sharp({ create: { width: 400, height: 200, channels: 3, background: '#336699' } }).jpeg().withMetadata({ orientation: 6 }).toBuffer();
  await writeFile(path.join(cwdOf(env), 'phone.jpg'), jpeg);
  const { results, followUp } = await readCalls(env, [{ file_path: 'phone.jpg' }]);
  t.regex(results[0].content, /JPEG, 200x400 px/);
  t.like((await imagesIn(followUp.body))[0], { width: 200, height: 400 });
});
