import { readFile } from 'node:fs/promises';
import * as v from 'valibot';
import type { ResolvedConfig } from '../config/resolve.ts';
import { fitImage, ImageDecodeError, ImageTooLargeError, type FittedImage, type Region } from '../media/images/encode.ts';
import { imageLimits, rawBytesFor } from '../media/images/limits.ts';
import { ToolError, type ToolRunResult } from './types.ts';

/** Largest image file Read decodes (a bigger one is refused with a note, not read into memory). */
export const READ_IMAGE_MAX_FILE_BYTES = 64 * 1024 * 1024;

const px = (d: string) => v.pipe(v.number(), v.integer(), v.minValue(0), v.description(d));

export const RegionInput = v.pipe(
  v.strictObject({
    x: px('Left edge, in pixels of the original image'),
    y: px('Top edge, in pixels of the original image'),
    width: v.pipe(v.number(), v.integer(), v.minValue(1), v.description('Width in pixels of the original image')),
    height: v.pipe(v.number(), v.integer(), v.minValue(1), v.description('Height in pixels of the original image')),
  }),
  v.description('Images only: read back this rectangle of the original image (its size is in the first read\'s text) at up to [image] max_edge_px, without the read byte budget'),
);

export interface ImageReadInput {
  region?: Region;
  full_resolution?: boolean;
}

const kb = (n: number) => (n < 10_240 ? `${n} bytes` : `${Math.round(n / 1024)} KB`);

/**
 * Read of an image file (Part B "image"): by default scaled to `[image] max_edge_px` and
 * re-encoded under `read_byte_budget`; a `region` read-back crops the original and a
 * `full_resolution` one keeps its pixels, both exempt from the byte budget. Either way the
 * provider's hard limits hold (src/media/images/limits.ts). The text part gives the original's
 * size, so the model can name a region in its pixels.
 */
export async function readImage(abs: string, shown: string, size: number, input: ImageReadInput, config: ResolvedConfig): Promise<ToolRunResult | string> {
  if (size > READ_IMAGE_MAX_FILE_BYTES) return `[image file ${shown}: ${size} bytes, over the ${READ_IMAGE_MAX_FILE_BYTES} bytes Read decodes]`;
  const hard = imageLimits(undefined);
  const exempt = input.region !== undefined || input.full_resolution === true;
  const maxEdgePx = input.full_resolution ? hard.maxEdgePx : Math.min(config.image.max_edge_px, hard.maxEdgePx);
  const maxBytes = exempt ? rawBytesFor(hard.maxBase64Bytes) : Math.min(config.image.read_byte_budget, rawBytesFor(hard.maxBase64Bytes));
  let fitted: FittedImage;
  try {
    fitted = await fitImage(await readFile(abs), { maxEdgePx, maxBytes, ...(input.region ? { region: input.region } : {}) });
  } catch (err) {
    if (err instanceof ImageDecodeError) throw new ToolError(`${shown} looks like an image but could not be decoded: ${err.message}`);
    if (err instanceof ImageTooLargeError) throw new ToolError(`${shown} could not be encoded within ${maxBytes} bytes`);
    throw err;
  }
  const { source } = fitted;
  if (input.region && (input.region.x >= source.width || input.region.y >= source.height)) {
    throw new ToolError(`region starts outside the image (${source.width}x${source.height} px)`);
  }
  const lines = [`Image ${shown}: ${source.format.toUpperCase()}, ${source.width}x${source.height} px, ${kb(size)}.`];
  if (input.region) lines.push(`Region x=${input.region.x} y=${input.region.y} width=${input.region.width} height=${input.region.height} (clipped to the image).`);
  const scaled = fitted.width !== (input.region ? Math.min(input.region.width, source.width - input.region.x) : source.width);
  lines.push(`Shown at ${fitted.width}x${fitted.height} px (${fitted.mediaType}, ${kb(fitted.bytes.length)})${fitted.changed ? '' : ', as stored'}.`);
  if (scaled && !input.full_resolution) {
    lines.push('Scaled down: for detail, Read again with region={x, y, width, height} in the original\'s pixels, or full_resolution=true.');
  }
  return {
    text: lines.join('\n'),
    images: [{ bytes: fitted.bytes, media_type: fitted.mediaType, ...(input.full_resolution ? { full_resolution: true } : {}) }],
  };
}
