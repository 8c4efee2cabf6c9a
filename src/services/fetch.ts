import * as v from 'valibot';
import { callService, ServiceError, type ServiceDeps } from './request.ts';

/** Request body of POST `<base_url>/fetch` (docs/services.md). */
export interface FetchRequest {
  url: string;
  /** What the caller looks for in the page: a hint the service may use or ignore. */
  prompt?: string;
  /** Longest content the caller will use; the service may cut the page to it. */
  max_chars?: number;
}

const Response = v.looseObject({
  url: v.optional(v.string()),
  title: v.optional(v.nullable(v.string())),
  content_type: v.optional(v.nullable(v.string())),
  content: v.string(),
});

/** A fetched page as WebFetch shows it, from the service or from the daemon's own fetch (src/webfetch/). */
export interface FetchedPage {
  url: string;
  title?: string;
  content_type?: string;
  content: string;
  /** Lines shown under the header: a redirect followed, a body cut at the size limit. */
  notes?: string[];
}

/** Fetches one page through the `pymodel_fetch` service (used when one is configured; else src/webfetch/ fetches). */
export async function webFetch(deps: ServiceDeps, req: FetchRequest): Promise<FetchedPage> {
  const body = await callService(deps, 'pymodel_fetch', '/fetch', req);
  const r = v.safeParse(Response, body);
  if (!r.success) throw new ServiceError('the web fetch service answered without a string `content`');
  const { url, title, content_type, content } = r.output;
  return { url: url || req.url, content, ...(title ? { title } : {}), ...(content_type ? { content_type } : {}) };
}
