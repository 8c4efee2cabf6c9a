import * as v from 'valibot';
import { callService, ServiceError, type ServiceDeps } from './request.ts';

/** Request body of POST `<base_url>/search` (docs/services.md). */
export interface SearchRequest {
  query: string;
  limit?: number;
  allowed_domains?: string[];
  blocked_domains?: string[];
}

const Result = v.looseObject({
  title: v.optional(v.nullable(v.string())),
  url: v.string(),
  snippet: v.optional(v.nullable(v.string())),
});
const Response = v.looseObject({ results: v.array(Result) });

export interface SearchResult { title: string; url: string; snippet?: string }

/** Runs one search on the `pymodel_search` service. */
export async function webSearch(deps: ServiceDeps, req: SearchRequest): Promise<SearchResult[]> {
  const body = await callService(deps, 'pymodel_search', '/search', req);
  const r = v.safeParse(Response, body);
  if (!r.success) throw new ServiceError('the web search service answered without a valid `results` array of {title, url, snippet}');
  return r.output.results.map((x) => ({ title: x.title || x.url, url: x.url, ...(x.snippet ? { snippet: x.snippet } : {}) }));
}
