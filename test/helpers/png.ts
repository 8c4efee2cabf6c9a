import { crc32, deflateSync } from 'node:zlib';

/**
 * A real grayscale PNG of `width` × `height` (every pixel black), small unless `stored` keeps the
 * pixel bytes uncompressed (a large file, to reach a provider's size limit).
 */
export function pngOf(width: number, height: number, opts: { stored?: boolean } = {}): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8); // 8-bit grayscale, no interlace
  const rows = Buffer.alloc((width + 1) * height); // each row: filter byte 0, then zero pixels
  const idat = deflateSync(rows, { level: opts.stored ? 0 : 9 });
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** `pngOf` as base64, the form images travel in. */
export const pngBase64 = (width: number, height: number, opts?: { stored?: boolean }) => pngOf(width, height, opts).toString('base64');
