import type { Metadata, OutputInfo } from 'sharp';
import { IMAGE_MEDIA_TYPES, type ImageFormat } from './detect.ts';

/** A crop in pixels of the upright image (EXIF orientation applied). */
export interface Region { x: number; y: number; width: number; height: number }

export interface FitOptions {
  /** Longest side of the result; undefined keeps the image's own size. */
  maxEdgePx?: number;
  /** Most bytes of the result. */
  maxBytes: number;
  /** Crop to this rectangle first (clipped to the image). */
  region?: Region;
}

export interface FittedImage {
  bytes: Buffer;
  mediaType: string;
  width: number;
  height: number;
  /** The input's own upright size and format (`png`, `jpeg`, `tiff`, ...). */
  source: { width: number; height: number; format: string };
  /** False when `bytes` are the input's, untouched. */
  changed: boolean;
}

/** The input is not an image sharp can decode (or it is corrupt or truncated). */
export class ImageDecodeError extends Error {}

/** Re-encoding at the smallest size tried still did not fit the byte limit. */
export class ImageTooLargeError extends Error {}

/** Formats the model is sent as they are; anything else sharp reads is converted to PNG. */
const PASS_THROUGH = new Set<string>(['png', 'jpeg', 'gif', 'webp']);
/** JPEG qualities tried, in order, when the preferred encoding is over the byte limit. */
/**
 * sharp (libvips, a native addon) loaded at the first image, not with the engine: a run that never sees an image
 * (most `svc-code -p` runs, a daemon until its first image) does not pay for it (docs/benchmarks.md). Node's module
 * cache makes every later call cheap.
 */
const loadSharp = async () => (await import('sharp')).default;

const QUALITIES = [80, 65, 50, 35];
const SHRINK = 0.75;
const MIN_EDGE = 32;

interface Decoded { format: string; width: number; height: number; oriented: boolean; animated: boolean }

async function probe(input: Buffer): Promise<Decoded> {
  const sharp = await loadSharp();
  let m: Metadata;
  try {
    m = await sharp(input).metadata();
  } catch (err) {
    throw new ImageDecodeError((err as Error).message);
  }
  if (!m.format || !m.width || !m.height) throw new ImageDecodeError('not an image');
  const oriented = (m.orientation ?? 1) > 1;
  const { width, height } = m.autoOrient ?? { width: m.width, height: m.height };
  return { format: m.format, width, height, oriented, animated: (m.pages ?? 1) > 1 };
}

/**
 * Decodes every pixel once, so a truncated or corrupt file is refused here and not by the provider
 * (a plain decode: `stats()` would cost ten times as much for the same check).
 */
async function verify(input: Buffer): Promise<void> {
  const sharp = await loadSharp();
  try {
    await sharp(input).raw().toBuffer();
  } catch (err) {
    throw new ImageDecodeError((err as Error).message);
  }
}

function clip(r: Region, width: number, height: number): { left: number; top: number; width: number; height: number } {
  const left = Math.max(0, Math.min(Math.floor(r.x), width - 1));
  const top = Math.max(0, Math.min(Math.floor(r.y), height - 1));
  return { left, top, width: Math.max(1, Math.min(Math.floor(r.width), width - left)), height: Math.max(1, Math.min(Math.floor(r.height), height - top)) };
}

/** The target size: the longest side capped at `maxEdge`, the aspect ratio kept. */
export function fitSize(width: number, height: number, maxEdge: number | undefined): { width: number; height: number } {
  const edge = Math.max(width, height);
  if (!maxEdge || edge <= maxEdge) return { width, height };
  const scale = maxEdge / edge;
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/**
 * The image as the model should get it: cropped to `region`, scaled down to `maxEdgePx` (never
 * up), and encoded in at most `maxBytes`. An image already within every bound, in a format every
 * provider takes, is returned byte for byte. Otherwise it keeps its format (GIF and others become
 * PNG), then falls back to JPEG at falling qualities, then to smaller sizes.
 */
export async function fitImage(input: Buffer, o: FitOptions): Promise<FittedImage> {
  const d = await probe(input);
  const source = { width: d.width, height: d.height, format: d.format };
  const crop = o.region ? clip(o.region, d.width, d.height) : undefined;
  const box = crop ?? { width: d.width, height: d.height };
  const size = fitSize(box.width, box.height, o.maxEdgePx);
  const untouched = !crop && !d.oriented && !d.animated && PASS_THROUGH.has(d.format) && size.width === d.width && input.length <= o.maxBytes;
  if (untouched) {
    await verify(input);
    return { bytes: input, mediaType: IMAGE_MEDIA_TYPES[d.format as ImageFormat], width: d.width, height: d.height, source, changed: false };
  }
  let pixels: { data: Buffer; info: OutputInfo };
  const sharp = await loadSharp();
  try {
    let img = sharp(input, { animated: false }).autoOrient();
    if (crop) img = img.extract(crop);
    pixels = await img.resize({ ...size, fit: 'fill' }).raw().toBuffer({ resolveWithObject: true });
  } catch (err) {
    throw new ImageDecodeError((err as Error).message);
  }
  const out = await encodeWithin(pixels, d.format, o.maxBytes);
  return { ...out, source, changed: true };
}

type Encoded = { bytes: Buffer; mediaType: string; width: number; height: number };

async function encodeWithin(px: { data: Buffer; info: OutputInfo }, format: string, maxBytes: number): Promise<Encoded> {
  const { width, height, channels } = px.info;
  const sharp = await loadSharp();
  const from = () => sharp(px.data, { raw: { width, height, channels } });
  const preferred = format === 'jpeg' ? 'jpeg' : format === 'webp' ? 'webp' : 'png';
  // zlib level 6 (the default): level 9 took three times as long here for 1-2% fewer bytes.
  const first = preferred === 'png' ? await from().png({ compressionLevel: 6 }).toBuffer() : await from().toFormat(preferred, { quality: 85 }).toBuffer();
  if (first.length <= maxBytes) return { bytes: first, mediaType: `image/${preferred}`, width, height };
  for (let w = width, h = height; Math.max(w, h) >= MIN_EDGE; w = Math.max(1, Math.round(w * SHRINK)), h = Math.max(1, Math.round(h * SHRINK))) {
    for (const quality of QUALITIES) {
      const bytes = await from().resize(w, h, { fit: 'fill' }).flatten({ background: '#ffffff' }).jpeg({ quality }).toBuffer();
      if (bytes.length <= maxBytes) return { bytes, mediaType: 'image/jpeg', width: w, height: h };
    }
  }
  throw new ImageTooLargeError(`no encoding of the image fits ${maxBytes} bytes`);
}
