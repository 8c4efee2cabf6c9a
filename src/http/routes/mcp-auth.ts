import { Codes } from '../../../protocol/codes.ts';
import {
  McpAuthBeginBody, McpAuthBeginResult, McpAuthCancelBody, McpAuthCompleteBody, McpAuthResetBody, McpAuthStatusesQuery, McpAuthStatusList,
  McpCwdQuery, McpOAuthCallbackQuery,
} from '../../../protocol/schemas/mcp.ts';
import type { McpManagement } from '../../mcp/management.ts';
import type { OAuthFlows } from '../../mcp/oauth-flows.ts';
import { route, type RouteDef } from '../route.ts';
import * as v from 'valibot';

export interface McpAuthRouteDeps {
  mcpManagement: McpManagement;
  mcpOAuth: OAuthFlows;
}

/** The path the authorization server sends the browser back to (no token: the flow's state authorizes it). */
export const MCP_OAUTH_CALLBACK_PATH = '/oauth/mcp/callback';

/** Part B "MCP management": OAuth of MCP servers (docs/mcp.md "OAuth"). */
export function mcpAuthRoutes(deps: McpAuthRouteDeps): RouteDef[] {
  const m = deps.mcpManagement;
  const flows = deps.mcpOAuth;
  const tags = ['mcp'];
  return [
    route({
      method: 'GET', path: '/api/v2/mcp/auth-statuses', operationId: 'mcpAuthStatuses', tags,
      summary: 'OAuth state per server: verify=true probes every OAuth candidate, false is offline, omitted probes unpinned servers without credentials',
      query: McpAuthStatusesQuery, data: McpAuthStatusList, codes: [Codes.VALIDATION],
      handler: ({ query }) => m.authStatuses(query.cwd, query.verify === undefined ? 'unpinned' : query.verify ? 'all' : 'none'),
    }),
    route({
      method: 'POST', path: '/api/v2/mcp/auth:begin', operationId: 'mcpAuthBegin', tags,
      summary: 'Starts an OAuth flow (dynamic client registration and PKCE as the server supports them) and answers the authorization URL',
      query: McpCwdQuery, body: McpAuthBeginBody, data: McpAuthBeginResult, codes: [Codes.VALIDATION, Codes.MCP_SERVER_NOT_FOUND, Codes.MCP_OAUTH_FAILED],
      handler: async ({ query, body }) => flows.begin(await m.find(body, query.cwd)),
    }),
    route({
      method: 'POST', path: '/api/v2/mcp/auth:complete', operationId: 'mcpAuthComplete', tags,
      summary: 'Waits for the browser callback of a flow (default 15 minutes); closing the connection aborts the wait',
      body: McpAuthCompleteBody, data: v.null(), codes: [Codes.VALIDATION, Codes.MCP_OAUTH_FAILED],
      handler: ({ body, ctx }) => {
        const gone = new AbortController();
        ctx.res.once('close', () => {
          if (!ctx.res.writableEnded) gone.abort();
        });
        return flows.complete(body.flowId, body.timeoutMs, gone.signal);
      },
    }),
    route({
      method: 'POST', path: '/api/v2/mcp/auth:cancel', operationId: 'mcpAuthCancel', tags,
      summary: 'Cancels a flow; unknown flows are ignored', body: McpAuthCancelBody, data: v.null(), codes: [Codes.VALIDATION],
      handler: ({ body }) => {
        flows.cancel(body.flowId);
        return null;
      },
    }),
    route({
      method: 'POST', path: '/api/v2/mcp/auth:reset', operationId: 'mcpAuthReset', tags,
      summary: 'Clears the stored grant (client registration and tokens); live sessions lose the server\'s authorization',
      query: McpCwdQuery, body: McpAuthResetBody, data: v.null(), codes: [Codes.VALIDATION, Codes.MCP_SERVER_NOT_FOUND],
      handler: async ({ query, body }) => {
        await flows.reset(await m.find(body, query.cwd));
        return null;
      },
    }),
    route({
      method: 'GET', path: MCP_OAUTH_CALLBACK_PATH, operationId: 'mcpOAuthCallback', tags, auth: false, raw: true,
      summary: 'The OAuth redirect target of MCP sign-ins (a browser page; the state of a pending flow authorizes it)',
      query: McpOAuthCallbackQuery, codes: [Codes.VALIDATION],
      handler: async ({ query, ctx }) => {
        const r = await flows.callback(query);
        ctx.status = 200;
        ctx.type = 'text/html; charset=utf-8';
        ctx.set('Cache-Control', 'no-store');
        ctx.body = `<!doctype html><meta charset="utf-8"><title>MCP sign-in</title><p>${escapeHtml(r.text)}</p>`;
      },
    }),
  ];
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
