import type { ToolDef } from './types.ts';
import { webFetchTool } from './web-fetch.ts';
import { webSearchTool } from './web-search.ts';

/** WebSearch and WebFetch: both go through the Part B [services] endpoints (docs/services.md). */
export const webTools: ToolDef[] = [webSearchTool, webFetchTool];
