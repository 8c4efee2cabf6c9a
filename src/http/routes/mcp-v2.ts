import { Codes } from '../../../protocol/codes.ts';
import {
  ManagedMcpServer, ManagedMcpServerList, McpCwdQuery, McpInspectBody, McpInspectionList, McpNameParams, McpServerCreateBody, McpServerReplaceBody,
  McpTestBody, McpTestResult,
} from '../../../protocol/schemas/mcp.ts';
import type { McpManagement } from '../../mcp/management.ts';
import { route, type RouteDef } from '../route.ts';

export interface McpV2RouteDeps {
  mcpManagement: McpManagement;
}

/** Part B "MCP management (/api/v2/mcp)": the catalog and the user-level file, independent of sessions. */
export function mcpV2Routes(deps: McpV2RouteDeps): RouteDef[] {
  const m = deps.mcpManagement;
  const tags = ['mcp'];
  const writeCodes = [Codes.VALIDATION, Codes.MCP_SERVER_NOT_FOUND];
  return [
    route({
      method: 'GET', path: '/api/v2/mcp/servers', operationId: 'listManagedMcpServers', tags,
      summary: 'Every known server: the user file, plugins and, with a trusted cwd, the project layers; read-only entries redacted',
      query: McpCwdQuery, data: ManagedMcpServerList, codes: [Codes.VALIDATION],
      handler: ({ query }) => m.list(query.cwd),
    }),
    route({
      method: 'GET', path: '/api/v2/mcp/servers/{name}', operationId: 'getManagedMcpServer', tags,
      summary: 'One managed server by runtime name', params: McpNameParams, query: McpCwdQuery, data: ManagedMcpServer,
      codes: [Codes.VALIDATION, Codes.MCP_SERVER_NOT_FOUND],
      handler: ({ params, query }) => m.get(params.name, query.cwd),
    }),
    route({
      method: 'POST', path: '/api/v2/mcp/servers', operationId: 'createManagedMcpServer', tags,
      summary: 'Adds a server to the user-level mcp.json (validated before writing); answers the refreshed list',
      query: McpCwdQuery, body: McpServerCreateBody, data: ManagedMcpServerList, codes: writeCodes,
      handler: ({ query, body }) => {
        const { name, ...config } = body;
        return m.create(name, config, query.cwd);
      },
    }),
    route({
      method: 'PUT', path: '/api/v2/mcp/servers/{name}', operationId: 'replaceManagedMcpServer', tags,
      summary: 'Replaces a user-level entry (40001 when the entry is read-only); answers the refreshed list',
      params: McpNameParams, query: McpCwdQuery, body: McpServerReplaceBody, data: ManagedMcpServerList, codes: writeCodes,
      handler: ({ params, query, body }) => m.replace(params.name, body, query.cwd),
    }),
    route({
      method: 'DELETE', path: '/api/v2/mcp/servers/{name}', operationId: 'deleteManagedMcpServer', tags,
      summary: 'Removes a user-level entry (40001 when the entry is read-only); answers the refreshed list',
      params: McpNameParams, query: McpCwdQuery, data: ManagedMcpServerList, codes: writeCodes,
      handler: ({ params, query }) => m.remove(params.name, query.cwd),
    }),
    route({
      method: 'POST', path: '/api/v2/mcp/servers:test', operationId: 'testMcpServer', tags,
      summary: 'Probes a real connection to a registry entry (name) or an inline config (server); persists nothing',
      body: McpTestBody, data: McpTestResult, codes: writeCodes,
      handler: ({ body }) => m.test(body),
    }),
    route({
      method: 'POST', path: '/api/v2/mcp/servers:inspect', operationId: 'inspectMcpServers', tags,
      summary: 'Locator-addressed catalog (default: every entry) with a batched probe of each OAuth candidate',
      body: McpInspectBody, data: McpInspectionList, codes: writeCodes,
      handler: ({ body }) => m.inspect(body.targets, body.cwd),
    }),
  ];
}
