// The child process of convert.ts: one HTML page to Markdown, then it exits. The libraries load here only, so
// the daemon never holds them nor a page's DOM, and all the memory a page took goes back with the process.
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import type { ConvertRequest, ConvertResult } from './convert.ts';

/** Fewer characters of article text than this: Readability found no article, the whole body is converted instead. */
const MIN_ARTICLE_CHARS = 200;
/** Elements of markup that never carry readable text. */
const NOISE = ['script', 'style', 'noscript', 'template', 'iframe', 'svg', 'canvas', 'object', 'embed', 'head'];

type Doc = ReturnType<typeof parseHTML>['document'];

/** Links and images made absolute against the page (or its `<base href>`): Readability cannot without a document URL. */
function absolutize(doc: Doc, pageUrl: string): void {
  let base = pageUrl;
  const declared = doc.querySelector('base[href]')?.getAttribute('href');
  if (declared) base = safeUrl(declared, pageUrl) ?? pageUrl;
  for (const [selector, attr] of [['a[href]', 'href'], ['img[src]', 'src']] as const) {
    for (const el of doc.querySelectorAll(selector)) {
      const raw = el.getAttribute(attr) ?? '';
      const abs = safeUrl(raw, base);
      if (abs && /^https?:/.test(abs)) el.setAttribute(attr, abs);
      else el.removeAttribute(attr); // javascript:, data: and broken URLs carry nothing the model can follow
    }
  }
}

function safeUrl(raw: string, base: string): string | undefined {
  try {
    return new URL(raw, base).href;
  } catch {
    return undefined;
  }
}

function turndown(): TurndownService {
  const td = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*' });
  td.remove(NOISE as TurndownService.Filter);
  // A link or image whose URL was dropped is its text alone.
  td.addRule('bareLink', { filter: (n) => n.nodeName === 'A' && !n.getAttribute('href'), replacement: (content) => content });
  td.addRule('bareImage', { filter: (n) => n.nodeName === 'IMG' && !n.getAttribute('src'), replacement: (_c, n) => (n as { getAttribute(a: string): string | null }).getAttribute('alt') ?? '' });
  return td;
}

function convert({ html, url }: ConvertRequest): ConvertResult {
  const { document } = parseHTML(html);
  absolutize(document, url);
  const title = document.title?.trim() || undefined;
  const td = turndown();
  // Readability changes the document it reads: the fallback reads the body as it was.
  const body = document.body?.cloneNode(true) as unknown as TurndownService.Node | undefined;
  const article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0]).parse();
  const articleText = article?.textContent?.trim() ?? '';
  if (article?.content && articleText.length >= MIN_ARTICLE_CHARS) {
    return { title: article.title?.trim() || title, markdown: td.turndown(article.content) };
  }
  return { title, markdown: body ? td.turndown(body) : '' };
}

// The daemon went away (stopped, crashed): nobody waits for the page.
process.once('disconnect', () => process.exit(0));
process.once('message', (req: ConvertRequest) => {
  let reply: unknown;
  try {
    reply = { ok: true, result: convert(req) };
  } catch (err) {
    reply = { ok: false, error: (err as Error).message ?? String(err) };
  }
  process.send!(reply, () => process.exit(0));
});
