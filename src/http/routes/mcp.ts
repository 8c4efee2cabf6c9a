import { Codes } from '../../../protocol/codes.ts';
import { McpRestartResult, McpServerIdParams, McpServerV1List } from '../../../protocol/schemas/mcp.ts';
import type { McpService } from '../../mcp/service.ts';
import { route, type RouteDef } from '../route.ts';

export interface McpRouteDeps {
  mcp: Pick<McpService, 'servers' | 'restart'>;
}

/** Part B "Skills, tools and MCP (v1)": the MCP servers of the effective agent (docs/mcp.md). */
export function mcpRoutes(deps: McpRouteDeps): RouteDef[] {
  const tags = ['mcp'];
  return [
    route({
      method: 'GET', path: '/api/v1/mcp/servers', operationId: 'listMcpServers', tags,
      summary: 'MCP servers of the effective agent (the most recently created live session\'s main agent); empty when no session is live',
      data: McpServerV1List,
      handler: async () => ({ servers: await deps.mcp.servers() }),
    }),
    route({
      method: 'POST', path: '/api/v1/mcp/servers/{mcp_server_id}:restart', operationId: 'restartMcpServer', tags,
      summary: 'Stops and starts one server of the effective agent with its current config (40408 also when no session is live)',
      params: McpServerIdParams, data: McpRestartResult, codes: [Codes.VALIDATION, Codes.MCP_SERVER_NOT_FOUND],
      handler: async ({ params }) => {
        await deps.mcp.restart(params.mcp_server_id);
        return { restarting: true as const };
      },
    }),
  ];
}
