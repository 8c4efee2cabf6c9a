/** What WebFetch does with a body, by its media type (sniffed when the server names none). */
export type BodyKind = 'html' | 'text' | 'other';

const TEXTUAL = /^(text\/|application\/(json|[\w.+-]+\+json|xml|[\w.+-]+\+xml|javascript|ecmascript|x-javascript|x-yaml|yaml|toml|x-sh|sql|graphql)$)/;

/** The media type without parameters, lowercased (`text/html; charset=x` -> `text/html`). */
export function mediaType(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

export function kindOf(contentType: string, body: Buffer): BodyKind {
  const type = mediaType(contentType);
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (TEXTUAL.test(type)) return 'text';
  if (type && type !== 'application/octet-stream') return 'other';
  // No (or a generic) type: markup is HTML, bytes without NUL are text.
  const head = body.subarray(0, 1024);
  if (/^\s*<(!doctype\s+html|html|head|body)\b/i.test(head.toString('latin1'))) return 'html';
  return head.includes(0) ? 'other' : 'text';
}

const BOMS: Array<[number[], string]> = [[[0xef, 0xbb, 0xbf], 'utf-8'], [[0xfe, 0xff], 'utf-16be'], [[0xff, 0xfe], 'utf-16le']];

function bomOf(body: Buffer): string | undefined {
  return BOMS.find(([bytes]) => bytes.every((b, i) => body[i] === b))?.[1];
}

const charsetParam = (s: string) => /charset\s*=\s*["']?([^"';\s]+)/i.exec(s)?.[1];

/** `<meta charset>` or `<meta http-equiv="content-type" content="...; charset=...">` in the first 1024 bytes. */
function metaCharset(body: Buffer): string | undefined {
  const head = body.subarray(0, 1024).toString('latin1');
  for (const m of head.matchAll(/<meta\b[^>]*>/gi)) {
    const tag = m[0];
    const direct = /\bcharset\s*=\s*["']?([^"'\s/>;]+)/i.exec(tag)?.[1];
    if (direct && !/http-equiv/i.test(tag)) return direct;
    if (/http-equiv\s*=\s*["']?content-type/i.test(tag)) {
      const content = /\bcontent\s*=\s*(["'])(.*?)\1/i.exec(tag)?.[2];
      const found = content && charsetParam(content);
      if (found) return found;
    }
  }
  return undefined;
}

function decoderFor(label: string | undefined): TextDecoder | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label.trim().toLowerCase());
  } catch {
    return undefined; // a label the Encoding Standard does not know: the next source decides
  }
}

/**
 * The body as text in its declared charset (WHATWG order: byte-order mark, then the Content-Type charset, then,
 * for HTML, a `<meta>` declaration; UTF-8 otherwise). Node's TextDecoder knows the Encoding Standard's labels.
 */
export function decodeBody(body: Buffer, contentType: string, kind: BodyKind): string {
  const decoder = decoderFor(bomOf(body)) ?? decoderFor(charsetParam(contentType)) ?? (kind === 'html' ? decoderFor(metaCharset(body)) : undefined)
    ?? new TextDecoder('utf-8');
  return decoder.decode(body);
}
