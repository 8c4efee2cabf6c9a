/**
 * The MCP SDK, loaded on first use. With zod under it, it costs about 12 MB of heap and 30 MB of
 * RSS, so a daemon that never starts an MCP server (or an MCP OAuth flow) never loads it.
 */
import type * as ClientModule from '@modelcontextprotocol/sdk/client/index.js';
import type * as SseModule from '@modelcontextprotocol/sdk/client/sse.js';
import type * as StdioModule from '@modelcontextprotocol/sdk/client/stdio.js';
import type * as StreamableModule from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type * as AuthModule from '@modelcontextprotocol/sdk/client/auth.js';
import type * as TypesModule from '@modelcontextprotocol/sdk/types.js';

export interface McpSdk {
  Client: typeof ClientModule.Client;
  SSEClientTransport: typeof SseModule.SSEClientTransport;
  StdioClientTransport: typeof StdioModule.StdioClientTransport;
  StreamableHTTPClientTransport: typeof StreamableModule.StreamableHTTPClientTransport;
  StreamableHTTPError: typeof StreamableModule.StreamableHTTPError;
  UnauthorizedError: typeof AuthModule.UnauthorizedError;
  auth: typeof AuthModule.auth;
  ElicitRequestSchema: typeof TypesModule.ElicitRequestSchema;
  ListRootsRequestSchema: typeof TypesModule.ListRootsRequestSchema;
  ToolListChangedNotificationSchema: typeof TypesModule.ToolListChangedNotificationSchema;
}

let loaded: McpSdk | undefined;
let loading: Promise<McpSdk> | undefined;

export function loadMcpSdk(): Promise<McpSdk> {
  if (loaded) return Promise.resolve(loaded);
  loading ??= load().then((sdk) => (loaded = sdk));
  return loading;
}

/**
 * The SDK if it has been loaded. Synchronous checks (`instanceof` on an error, a transport's pid)
 * use it: before the SDK is loaded no object of its classes can exist.
 */
export function loadedMcpSdk(): McpSdk | undefined {
  return loaded;
}

async function load(): Promise<McpSdk> {
  const [client, sse, stdio, streamable, auth, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/client/auth.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return {
    Client: client.Client,
    SSEClientTransport: sse.SSEClientTransport,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: streamable.StreamableHTTPClientTransport,
    StreamableHTTPError: streamable.StreamableHTTPError,
    UnauthorizedError: auth.UnauthorizedError,
    auth: auth.auth,
    ElicitRequestSchema: types.ElicitRequestSchema,
    ListRootsRequestSchema: types.ListRootsRequestSchema,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
  };
}
