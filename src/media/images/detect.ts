/**
 * What a file's first bytes say it is. Images the model can be sent (PNG, JPEG, GIF, WebP: the
 * formats every supported provider accepts) are told apart by their signatures, never by the
 * file name; a few common binary formats are named so a note can say what a file is.
 */

/** The image formats sent to a model as they are. */
export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';

export const IMAGE_MEDIA_TYPES: Record<ImageFormat, string> = {
  png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp',
};

/** Bytes to read from a file's start to recognise it. */
export const SNIFF_BYTES = 16;

const startsWith = (b: Buffer, sig: number[], at = 0) => b.length >= at + sig.length && sig.every((x, i) => b[at + i] === x);
const ascii = (b: Buffer, s: string, at = 0) => b.length >= at + s.length && b.toString('latin1', at, at + s.length) === s;

/** The image format of `head` (a file's first SNIFF_BYTES or more), if it is one the model takes. */
export function imageFormatOf(head: Buffer): ImageFormat | undefined {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (ascii(head, 'GIF87a') || ascii(head, 'GIF89a')) return 'gif';
  if (ascii(head, 'RIFF') && ascii(head, 'WEBP', 8)) return 'webp';
  return undefined;
}

/** Binary formats named in notes (signature -> media type); anything else is `application/octet-stream`. */
const BINARY_SIGNATURES: Array<[(b: Buffer) => boolean, string]> = [
  [(b) => ascii(b, '%PDF-'), 'application/pdf'],
  [(b) => startsWith(b, [0x50, 0x4b, 0x03, 0x04]), 'application/zip'],
  [(b) => startsWith(b, [0x1f, 0x8b]), 'application/gzip'],
  [(b) => startsWith(b, [0x7f, 0x45, 0x4c, 0x46]), 'application/x-elf'],
  [(b) => ascii(b, 'MZ'), 'application/x-msdownload'],
  [(b) => startsWith(b, [0xcf, 0xfa, 0xed, 0xfe]) || startsWith(b, [0xca, 0xfe, 0xba, 0xbe]), 'application/x-mach-binary'],
  [(b) => ascii(b, 'SQLite format 3'), 'application/vnd.sqlite3'],
  [(b) => startsWith(b, [0x00, 0x61, 0x73, 0x6d]), 'application/wasm'],
  [(b) => ascii(b, 'BM'), 'image/bmp'],
  [(b) => ascii(b, 'II*\0') || ascii(b, 'MM\0*'), 'image/tiff'],
  [(b) => ascii(b, 'ftyp', 4) && /^(heic|heix|mif1|avif)/.test(b.toString('latin1', 8, 12)), 'image/heif'],
  [(b) => ascii(b, 'ftyp', 4), 'video/mp4'],
  [(b) => startsWith(b, [0x1a, 0x45, 0xdf, 0xa3]), 'video/webm'],
  [(b) => ascii(b, 'ID3') || startsWith(b, [0xff, 0xfb]), 'audio/mpeg'],
  [(b) => ascii(b, 'RIFF') && ascii(b, 'WAVE', 8), 'audio/wav'],
  [(b) => ascii(b, 'OggS'), 'application/ogg'],
  [(b) => ascii(b, '7z\xbc\xaf\x27\x1c'), 'application/x-7z-compressed'],
];

/** The media type a binary file's signature names, or undefined when it is not one we know. */
export function binaryTypeOf(head: Buffer): string | undefined {
  const image = imageFormatOf(head);
  if (image) return IMAGE_MEDIA_TYPES[image];
  return BINARY_SIGNATURES.find(([test]) => test(head))?.[1];
}

/**
 * Whether a sample of a file's bytes looks binary: a NUL byte, or more than a tenth of
 * control characters other than tab, newline, carriage return, form feed and escape.
 */
export function looksBinary(sample: Buffer): boolean {
  if (sample.includes(0)) return true;
  let control = 0;
  for (const b of sample) if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x1b) control++;
  return sample.length > 0 && control / sample.length > 0.1;
}
