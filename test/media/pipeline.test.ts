import test from 'ava';
import pino from 'pino';
import sharp from 'sharp';
import { ImagePipeline } from '../../src/media/images/pipeline.ts';
import { makePng } from '../helpers/images.ts';

const log = pino({ level: 'silent' });
const pipeline = (cacheBytes?: number) => new ImagePipeline({ log, settings: () => ({ max_edge_px: 2000 }), ...(cacheBytes ? { cacheBytes } : {}) });

test('a fitted image is cached by content and bounds: the same image is not read or encoded again', async (t) => {
  const p = pipeline();
  const png = await makePng(3000, 2000);
  let reads = 0;
  const req = { identity: 'shot.png|1|1', load: async () => (reads++, png), maxEdgePx: 2000, maxBytes: 4_000_000 };
  const first = await p.fit(req);
  const again = await p.fit(req);
  t.true(first.ok);
  t.true(again === first, 'the cached result');
  t.is(reads, 1, 'a known identity is not read again');
  // Other bytes with the same identity string cannot happen; other bounds are another result.
  const smaller = await p.fit({ ...req, maxEdgePx: 1000 });
  t.like(smaller, { ok: true, width: 1000, height: 667 });
  // Without an identity the bytes are read and hashed, and the same content still hits the cache.
  const copy = await p.fit({ load: async () => Buffer.from(png), maxEdgePx: 2000, maxBytes: 4_000_000 });
  t.true(copy === first);
});

test('the cache is bounded by bytes: old results are dropped', async (t) => {
  // Each result is about 160,000 base64 characters: two fit in 350,000, three do not.
  const p = pipeline(350_000);
  const images = await Promise.all([1, 2, 3].map((i) => makePng(200 + i, 200, { noise: true })));
  const results = [];
  for (const img of images) results.push(await p.fit({ load: async () => img, maxBytes: 4_000_000 }));
  t.true(await p.fit({ load: async () => images[2]!, maxBytes: 4_000_000 }) === results[2], 'the newest is kept');
  t.false(await p.fit({ load: async () => images[0]!, maxBytes: 4_000_000 }) === results[0], 'the oldest was evicted');
});

test('an image over the byte limit is re-encoded smaller; one that cannot be decoded is a reason, not a throw', async (t) => {
  const p = pipeline();
  const noise = await makePng(800, 600, { noise: true });
  const fitted = await p.fit({ load: async () => noise, maxEdgePx: 2000, maxBytes: 60_000 });
  if (!fitted.ok) return t.fail(fitted.reason);
  t.true(Buffer.from(fitted.data, 'base64').length <= 60_000);
  t.is(fitted.mediaType, 'image/jpeg');
  t.deepEqual(fitted.source, { width: 800, height: 600, format: 'png' });
  const meta = await sharp(Buffer.from(fitted.data, 'base64')).metadata();
  t.is(meta.format, 'jpeg');
  t.deepEqual(await p.fit({ load: async () => Buffer.from('not an image at all'), maxBytes: 1000 }), { ok: false, reason: 'not a decodable image' });
  t.like(await p.fit({ load: async () => { throw Object.assign(new Error('gone'), { code: 'ENOENT' }); }, maxBytes: 1000 }), { ok: false, reason: 'unreadable (ENOENT)' });
});
