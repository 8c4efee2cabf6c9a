import type { ToolDef } from './types.ts';
import { webFetchTool } from './web-fetch.ts';
import { webSearchTool } from './web-search.ts';

/**
 * WebSearch (offered only with a [services.pymodel_search] endpoint) and WebFetch (through [services.pymodel_fetch]
 * when configured, else fetched by the daemon itself, src/webfetch/); docs/services.md.
 */
export const webTools: ToolDef[] = [webSearchTool, webFetchTool];
