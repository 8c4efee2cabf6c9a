import { looksBinary } from '../media/images/detect.ts';

/** How a text file's bytes are encoded; Edit writes the file back the same way. */
export type TextEncoding = 'utf-8' | 'utf-8-bom' | 'utf-16le' | 'utf-16be' | 'latin1';

/** A text file decoded for editing: its text with `\n` line ends, and how to turn edited text back into its bytes. */
export interface TextFile {
  text: string;
  encoding: TextEncoding;
  /** `\r\n`: every line of the file ended so (the text is kept with `\n` and converted back on write). */
  eol: '\n' | '\r\n';
}

const BOMS: ReadonlyArray<[TextEncoding, number[]]> = [['utf-8-bom', [0xef, 0xbb, 0xbf]], ['utf-16le', [0xff, 0xfe]], ['utf-16be', [0xfe, 0xff]]];

/** The encoding a byte-order mark at the start names, if any. */
export function bomOf(bytes: Buffer): TextEncoding | undefined {
  return BOMS.find(([, bom]) => bom.every((b, i) => bytes[i] === b))?.[0];
}

function swap16(bytes: Buffer): Buffer {
  const out = Buffer.from(bytes.subarray(0, bytes.length - (bytes.length % 2)));
  return out.swap16();
}

function decodeAs(bytes: Buffer, encoding: TextEncoding): string {
  switch (encoding) {
    case 'utf-8-bom': return bytes.subarray(3).toString('utf8');
    case 'utf-16le': return bytes.subarray(2).toString('utf16le');
    case 'utf-16be': return swap16(bytes.subarray(2)).toString('utf16le');
    case 'latin1': return bytes.toString('latin1');
    case 'utf-8': return bytes.toString('utf8');
  }
}

/**
 * The text of a file's bytes, or null for a binary file. A BOM names the encoding (UTF-8, UTF-16 LE/BE);
 * otherwise valid UTF-8 is UTF-8 and anything else is a legacy single-byte encoding read as Latin-1,
 * which gives every byte back unchanged on write.
 */
export function decodeTextFile(bytes: Buffer): TextFile | null {
  const bom = bomOf(bytes);
  if (!bom && looksBinary(bytes.subarray(0, 8192))) return null;
  let encoding: TextEncoding = bom ?? 'utf-8';
  if (!bom) {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      encoding = 'latin1';
    }
  }
  const raw = decodeAs(bytes, encoding);
  const crlf = raw.includes('\r\n') && !/(^|[^\r])\n/.test(raw);
  return { text: crlf ? raw.replaceAll('\r\n', '\n') : raw, encoding, eol: crlf ? '\r\n' : '\n' };
}

/** Characters of `text` the file's encoding cannot hold (Latin-1 holds U+0000..U+00FF only). */
export function unencodable(text: string, encoding: TextEncoding): string[] {
  if (encoding !== 'latin1') return [];
  return [...new Set([...text].filter((c) => c.codePointAt(0)! > 0xff))];
}

/** The bytes of edited text in the file's own encoding and line endings. */
export function encodeTextFile(text: string, file: Pick<TextFile, 'encoding' | 'eol'>): Buffer {
  const body = file.eol === '\r\n' ? text.replaceAll('\n', '\r\n') : text;
  switch (file.encoding) {
    case 'utf-8': return Buffer.from(body, 'utf8');
    case 'utf-8-bom': return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body, 'utf8')]);
    case 'utf-16le': return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(body, 'utf16le')]);
    case 'utf-16be': return Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(body, 'utf16le').swap16()]);
    case 'latin1': return Buffer.from(body, 'latin1');
  }
}
