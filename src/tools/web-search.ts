import * as v from 'valibot';
import { webSearch, type SearchResult } from '../services/search.ts';
import { OUTPUT_BUDGET, truncateHead } from './truncate.ts';
import { defineTool, ToolError } from './types.ts';
import { asToolError, serviceDeps } from './web-deps.ts';

/** Results asked of the service per search. */
export const SEARCH_LIMIT = 10;

/** Why WebSearch is not offered: the daemon has no search engine of its own. */
export const SEARCH_UNCONFIGURED =
  'no web search service is configured: set base_url in the [services.pymodel_search] section of config.toml, or the environment variables SVC_WEB_SEARCH_BASE_URL and SVC_WEB_SEARCH_API_KEY';

const Domains = (what: string) => v.optional(v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.description(what)));

const Input = v.strictObject({
  query: v.pipe(v.string(), v.minLength(2), v.description('The search query')),
  allowed_domains: Domains('Only include results from these domains'),
  blocked_domains: Domains('Never include results from these domains'),
});

/** `*.Example.com` / `.example.com` -> `example.com`. */
const normal = (d: string) => d.trim().toLowerCase().replace(/^\*?\.+/, '');

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

const under = (host: string, domains: string[]) => domains.some((d) => host === d || host.endsWith(`.${d}`));

/** The domain filters again on our side: a service that ignores them must not leak blocked results. */
export function filterResults(results: SearchResult[], allowed?: string[], blocked?: string[]): SearchResult[] {
  const allow = allowed?.map(normal).filter(Boolean);
  const block = blocked?.map(normal).filter(Boolean) ?? [];
  return results.filter((r) => {
    const host = hostOf(r.url);
    if (!host) return false;
    return (!allow?.length || under(host, allow)) && !under(host, block);
  });
}

export function formatResults(query: string, results: SearchResult[]): string {
  if (!results.length) return `No web results for "${query}".`;
  const items = results.map((r, i) => [`${i + 1}. ${r.title}`, `   ${r.url}`, ...(r.snippet ? [`   ${r.snippet.replace(/\s+/g, ' ').trim()}`] : [])].join('\n'));
  return `Web search results for "${query}" (${results.length}):\n\n${items.join('\n\n')}`;
}

export const webSearchTool = defineTool({
  name: 'WebSearch',
  description:
    `Searches the web and returns a numbered list of results (title, URL, snippet) for up-to-date information. ` +
    `Optionally restrict results to allowed_domains or exclude blocked_domains (not both). Output is capped at ${OUTPUT_BUDGET} characters.`,
  schema: Input,
  readOnly: true,
  // Without a search service the model is not offered the tool at all (a call would only fail).
  unavailable: (config) => (config.services.pymodel_search?.base_url ? undefined : SEARCH_UNCONFIGURED),
  async run(input, ctx) {
    if (input.allowed_domains?.length && input.blocked_domains?.length) {
      throw new ToolError('give either allowed_domains or blocked_domains, not both');
    }
    const results = await webSearch(serviceDeps(ctx), { ...input, limit: SEARCH_LIMIT }).catch(asToolError);
    return truncateHead(formatResults(input.query, filterResults(results, input.allowed_domains, input.blocked_domains)), OUTPUT_BUDGET);
  },
});
