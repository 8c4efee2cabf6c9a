import type * as v from 'valibot';
import type { SessionIndex } from '../../../projections/session-index/session-index.ts';
import type { EngineRegistry } from '../../engine/runtime-registry.ts';
import type { BuiltinToolExecutor } from '../../tools/executor.ts';
import { Codes } from '../../../protocol/codes.ts';
import { route, type RouteDef } from '../route.ts';
import { ToolList, ToolsQuery, type ToolDescriptor } from '../../../protocol/schemas/tools.ts';

/** The index, the loaded runtimes and the executor whose descriptors are listed. */
export interface ToolRouteDeps {
  sessions: SessionIndex;
  engine: Pick<EngineRegistry, 'get'>;
  tools: Pick<BuiltinToolExecutor, 'available' | 'externalAvailable'>;
}

/** Part B "Skills, tools and MCP (v1)": the tools of a live session. */
export function toolRoutes(deps: ToolRouteDeps): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/v1/tools', operationId: 'listTools', tags: ['tools'],
      summary: 'Tool descriptors of a live session (session_id, default the most recently created session); empty when that session is not live. '
        + 'active is false for tools excluded by [tools] enabled/disabled, and for tools whose service is not configured (inactive_reason says which).',
      query: ToolsQuery, data: ToolList, codes: [Codes.VALIDATION],
      handler: ({ query }) => ({ tools: listTools(deps, query.session_id) }),
    }),
  ];
}

function listTools(deps: ToolRouteDeps, sessionId: string | undefined): Array<v.InferOutput<typeof ToolDescriptor>> {
  const id = sessionId ?? deps.sessions.walk('created_desc').next().value?.id;
  if (!id || !deps.engine.get(id)) return [];
  const builtins = deps.tools.available([], deps.sessions.get(id)).map(({ tool, active, inactiveReason }) => ({
    name: tool.name, description: tool.description, input_schema: null, source: 'builtin' as const, active, ...(inactiveReason ? { inactive_reason: inactiveReason } : {}),
  }));
  const mcp = deps.tools.externalAvailable(id).map(({ tool, active }) => ({ name: tool.name, description: tool.description, input_schema: null, source: 'mcp' as const, ...(tool.serverId ? { mcp_server_id: tool.serverId } : {}), active }));
  return [...builtins, ...mcp];
}
