import type { FetchedPage } from '../services/fetch.ts';
import type { Network } from './addresses.ts';
import { decodeBody, kindOf, mediaType } from './body.ts';
import { htmlToMarkdown, type ConvertLimits } from './convert.ts';
import { fetchUrl, FetchError, type FetchLimits } from './http.ts';

export { FetchError };

/** Every bound of a direct fetch. */
export interface WebFetchLimits extends FetchLimits {
  convert: ConvertLimits;
}

/** docs/services.md "Fetching without a service". */
export const DEFAULT_WEB_FETCH_LIMITS: WebFetchLimits = {
  maxBytes: 2 * 1024 * 1024,
  timeoutMs: 30_000,
  connectTimeoutMs: 10_000,
  maxRedirects: 5,
  convert: { timeoutMs: 30_000, heapMb: 512 },
};


export interface PageOptions {
  limits: WebFetchLimits;
  networks: readonly Network[];
  signal: AbortSignal;
  userAgent: string;
}

/** Characters of the page's text kept in the error of a non-2xx answer. */
const ERROR_EXCERPT = 2000;

const KiB = (n: number) => `${Math.round(n / 1024)} KiB`;

/**
 * Fetches `url` itself (no [services] endpoint): HTML becomes Markdown, text and JSON pass through, other types
 * are a one-line note. A non-2xx answer is a FetchError with the status and the start of the page.
 */
export async function fetchPage(url: string, opts: PageOptions): Promise<FetchedPage> {
  const res = await fetchUrl(url, opts);
  const kind = kindOf(res.contentType, res.body);
  const notes: string[] = [];
  if (res.url !== new URL(url).href) notes.push(`Redirected from ${url}`);
  if (res.cut) notes.push(`Only the first ${KiB(opts.limits.maxBytes)} of the page were read (the WebFetch size limit)`);
  let title: string | undefined;
  let content: string;
  if (kind === 'other') {
    content = `[${mediaType(res.contentType) || 'binary'} content, ${res.body.length}${res.cut ? '+' : ''} bytes: WebFetch shows HTML, text and JSON only]`;
  } else {
    const text = decodeBody(res.body, res.contentType, kind);
    if (kind === 'html') {
      const converted = await htmlToMarkdown({ html: text, url: res.url }, opts.limits.convert, opts.signal).catch((err: Error) => {
        throw new FetchError(`cannot convert ${res.url} to text: ${err.message}`);
      });
      title = converted.title;
      content = converted.markdown;
    } else {
      content = text;
    }
  }
  if (res.status < 200 || res.status > 299) {
    const excerpt = content.trim().slice(0, ERROR_EXCERPT);
    throw new FetchError(`${res.url} answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}${excerpt ? `:\n\n${excerpt}` : ''}`);
  }
  return { url: res.url, content, ...(title ? { title } : {}), ...(res.contentType ? { content_type: res.contentType } : {}), ...(notes.length ? { notes } : {}) };
}
