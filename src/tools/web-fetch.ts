import * as v from 'valibot';
import { webFetch, type FetchedPage } from '../services/fetch.ts';
import { parseNetworks } from '../webfetch/addresses.ts';
import { fetchPage, FetchError } from '../webfetch/page.ts';
import { truncateHead } from './truncate.ts';
import { defineTool, ToolError, type ToolContext } from './types.ts';
import { asToolError, serviceDeps } from './web-deps.ts';

const httpUrl = (s: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(s).protocol);
  } catch {
    return false;
  }
};

const Input = v.strictObject({
  url: v.pipe(v.string(), v.url(), v.check(httpUrl, 'must be an http or https URL'), v.description('The http(s) URL to fetch')),
  prompt: v.optional(v.pipe(v.string(), v.description('What to look for in the page (a hint passed to the fetch service)'))),
});

function header(page: FetchedPage): string {
  const lines = [`URL: ${page.url}`];
  if (page.title) lines.push(`Title: ${page.title}`);
  if (page.content_type) lines.push(`Content-Type: ${page.content_type}`);
  for (const note of page.notes ?? []) lines.push(`Note: ${note}`);
  return `${lines.join('\n')}\n\n`;
}

/** The page under its URL header, the whole within `budget` characters. */
export function formatPage(page: FetchedPage, budget: number): string {
  const head = header(page);
  const content = page.content.trim() ? page.content : '[empty page]';
  return truncateHead(head + content, Math.max(budget, head.length + 64));
}

/** The daemon fetches the page itself: no [services.pymodel_fetch] endpoint is configured. */
async function fetchDirect(url: string, ctx: ToolContext): Promise<FetchedPage> {
  const networks = parseNetworks(ctx.config.services.pymodel_fetch?.allowed_private_networks ?? []);
  try {
    return await fetchPage(url, { limits: ctx.deps.webFetch, networks, signal: ctx.signal, userAgent: `${ctx.config.identity.slug}-webfetch` });
  } catch (err) {
    if (err instanceof FetchError) throw new ToolError(err.message);
    throw err;
  }
}

export const webFetchTool = defineTool({
  name: 'WebFetch',
  description:
    'Fetches a web page (http or https) and returns its content under a URL header: HTML as Markdown, text and JSON as they are. ' +
    'Output is capped by the same character budget as Read ([read] default_max_chars).',
  schema: Input,
  readOnly: true,
  async run(input, ctx) {
    const budget = ctx.config.read.default_max_chars;
    const page = ctx.config.services.pymodel_fetch?.base_url
      ? await webFetch(serviceDeps(ctx), { url: input.url, prompt: input.prompt, max_chars: budget }).catch(asToolError)
      : await fetchDirect(input.url, ctx);
    return formatPage(page, budget);
  },
});
