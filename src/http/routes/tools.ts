import type * as v from 'valibot';
import type { AppContext } from '../../app/context.ts';
import { BuiltinToolExecutor } from '../../tools/executor.ts';
import { Codes } from '../../protocol/codes.ts';
import { route, type RouteDef } from '../route.ts';
import { ToolList, ToolsQuery, type ToolDescriptor } from '../../protocol/schemas/tools.ts';

/** Part B "Skills, tools and MCP (v1)": the tools of a live session. */
export function toolRoutes(app: AppContext): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/v1/tools', operationId: 'listTools', tags: ['tools'],
      summary: 'Tool descriptors of a live session (session_id, default the most recently created session); empty when that session is not live. '
        + 'active is false for tools excluded by [tools] enabled/disabled.',
      query: ToolsQuery, data: ToolList, codes: [Codes.VALIDATION],
      handler: ({ query }) => ({ tools: listTools(app, query.session_id) }),
    }),
  ];
}

function listTools(app: AppContext, sessionId: string | undefined): Array<v.InferOutput<typeof ToolDescriptor>> {
  const id = sessionId ?? app.sessions.walk('created_desc').next().value?.id;
  const ex = app.engine.tools;
  if (!id || !app.engine.get(id) || !(ex instanceof BuiltinToolExecutor)) return [];
  return ex.available([], app.sessions.get(id)).map(({ tool, active }) => ({ name: tool.name, description: tool.description, input_schema: null, source: 'builtin', active }));
}
