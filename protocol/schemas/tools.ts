import * as v from 'valibot';
import { Id } from './common.ts';

/** GET /tools query. */
export const ToolsQuery = v.object({
  session_id: v.optional(v.pipe(Id, v.description('Session whose tools to list (default: the most recently created session)'))),
});

/** Part B "Tool descriptor". */
export const ToolDescriptor = v.object({
  name: v.string(),
  description: v.string(),
  input_schema: v.pipe(v.null(), v.description('currently always null')),
  source: v.picklist(['builtin', 'skill', 'mcp']),
  mcp_server_id: v.optional(v.string()),
  active: v.optional(v.pipe(v.boolean(), v.description('false when [tools] enabled/disabled excludes it, or when the service it needs is not configured'))),
  inactive_reason: v.optional(v.pipe(v.string(), v.description(
    'why the tool cannot run under the current config (WebSearch without a [services.pymodel_search] endpoint); absent otherwise',
  ))),
});

export const ToolList = v.object({ tools: v.array(ToolDescriptor) });
