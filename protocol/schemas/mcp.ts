import * as v from 'valibot';
import { Id, LIMITS, Line, PathString, boundedArray, boundedString, intIn, objectOnly, QueryBool } from './common.ts';

// MCP servers (Part B "MCP server (v1 view)", "Managed MCP server (v2)", "MCP inspection", "MCP locator",
// "MCP management (/api/v2/mcp)"; the file layout and config keys are docs/mcp.md).

/** A server's runtime name: the `<server>` of `mcp__<server>__<tool>` (no `__`, so tool names parse back). */
export const McpServerName = v.pipe(
  v.string('must be a string'),
  v.minLength(1, 'must not be empty'),
  v.maxLength(64, 'must be at most 64 characters'),
  v.regex(/^[A-Za-z0-9_-]+$/, 'must be letters, digits, "_" or "-"'),
  v.check((s) => !s.includes('__'), 'must not contain "__" (it separates server and tool in mcp__<server>__<tool>)'),
);

const EnvKey = v.pipe(boundedString(LIMITS.idChars), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'));
const HeaderName = v.pipe(boundedString(LIMITS.idChars), v.regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP header name'));
const HeaderValue = v.pipe(Line, v.check((s) => !/[\r\n\0]/.test(s), 'must not contain CR, LF or NUL'));
const table = <K extends v.GenericSchema<string, string>, S extends v.GenericSchema>(key: K, value: S) =>
  v.pipe(objectOnly(v.record(key, value)), v.maxEntries(100, 'at most 100 entries'));

const HttpUrl = v.pipe(
  boundedString(LIMITS.lineChars),
  v.url('must be a URL'),
  v.check((s) => /^https?:\/\//i.test(s), 'must be an http(s) URL'),
);

const Timeouts = {
  enabled: v.optional(v.pipe(v.boolean(), v.description('false: declared but never started (default true)'))),
  startupTimeoutMs: v.optional(v.pipe(intIn(1, 3_600_000), v.description('connection plus tool discovery; wins over [mcp] startup_timeout_ms'))),
  toolTimeoutMs: v.optional(v.pipe(intIn(1, 86_400_000), v.description('one tool call; wins over [mcp] tool_timeout_ms'))),
};

const StdioFields = {
  transport: v.literal('stdio'),
  command: v.pipe(boundedString(LIMITS.pathBytes), v.check((s) => !s.includes('\0'), 'must not contain NUL bytes'), v.description('executable (PATH lookup)')),
  args: v.optional(boundedArray(v.pipe(Line, v.check((s) => !s.includes('\0'), 'must not contain NUL bytes')), 1000)),
  env: v.optional(v.pipe(table(EnvKey, v.pipe(Line, v.check((s) => !s.includes('\0'), 'must not contain NUL bytes'))), v.description('added to the child environment (secrets allowed: never shown by read-only views)'))),
  cwd: v.optional(v.pipe(PathString, v.description('working directory of the child (default: the session workspace root)'))),
  ...Timeouts,
};

const RemoteFields = {
  url: HttpUrl,
  headers: v.optional(v.pipe(table(HeaderName, HeaderValue), v.description('static headers; with a static Authorization header the server is bearer-token, not OAuth'))),
  bearerToken: v.optional(v.pipe(boundedString(LIMITS.lineChars), v.description('static bearer token (Authorization: Bearer ...)'))),
  auth: v.optional(v.pipe(v.picklist(['auto', 'oauth', 'none']), v.description('auto (default): OAuth when the server asks for it and no static token is set; oauth: always (static headers allowed); none: never'))),
  oauth: v.optional(v.strictObject({
    scope: v.optional(Line),
    clientId: v.optional(v.pipe(boundedString(LIMITS.lineChars), v.description('pre-registered client (no dynamic registration)'))),
    clientSecret: v.optional(boundedString(LIMITS.lineChars)),
  })),
  ...Timeouts,
};

export const McpStdioConfig = v.strictObject(StdioFields);
export const McpHttpConfig = v.strictObject({ transport: v.literal('http'), ...RemoteFields });
export const McpSseConfig = v.strictObject({ transport: v.literal('sse'), ...RemoteFields });

/** One server's config as stored in an mcp.json layer; `transport` discriminates the shape. */
export const McpServerConfig = v.pipe(v.variant('transport', [McpStdioConfig, McpHttpConfig, McpSseConfig]), v.title('McpServerConfig'));
export type McpServerConfig = v.InferOutput<typeof McpServerConfig>;
export type McpRemoteConfig = v.InferOutput<typeof McpHttpConfig> | v.InferOutput<typeof McpSseConfig>;

/** POST /api/v2/mcp/servers: the full config with its `name`. */
export const McpServerCreateBody = v.variant('transport', [
  v.strictObject({ name: McpServerName, ...StdioFields }),
  v.strictObject({ name: McpServerName, transport: v.literal('http'), ...RemoteFields }),
  v.strictObject({ name: McpServerName, transport: v.literal('sse'), ...RemoteFields }),
]);

/** PUT /api/v2/mcp/servers/{name}: the config without `name`. */
export const McpServerReplaceBody = McpServerConfig;

export const McpNameParams = v.object({ name: McpServerName });
export const McpCwdQuery = v.object({ cwd: v.optional(PathString) });

/** Part B "MCP locator". */
export const McpLocator = v.variant('source', [
  v.strictObject({ source: v.literal('global'), name: McpServerName }),
  v.strictObject({ source: v.literal('plugin'), pluginId: Id, serverName: McpServerName }),
]);
export type McpLocator = v.InferOutput<typeof McpLocator>;

/** A config as a read-only view shows it: secrets replaced by sorted key lists. */
const RedactedConfig = v.pipe(v.record(v.string(), v.unknown()), v.description('full config (mutable entries) or, for read-only entries, the config with env / headers / tokens replaced by sorted envKeys / headerKeys'));

/** Part B "Managed MCP server (v2)". */
export const ManagedMcpServer = v.object({
  name: v.string(),
  config: RedactedConfig,
  source: v.picklist(['global', 'plugin']),
  origin: v.pipe(v.string(), v.description('the mcp.json file, or the plugin id')),
  mutable: v.boolean(),
  plugin: v.optional(v.object({ id: v.string(), name: v.string() })),
  layer: v.optional(v.pipe(v.picklist(['user', 'project-root', 'project-local', 'plugin']), v.description('which mcp.json layer declares it (docs/mcp.md)'))),
  shadowed: v.optional(v.pipe(v.boolean(), v.description('a plugin entry hidden by a same-named file entry'))),
});
export type ManagedMcpServer = v.InferOutput<typeof ManagedMcpServer>;
export const ManagedMcpServerList = v.array(ManagedMcpServer);

export const McpAuthStatus = v.picklist(['not-applicable', 'bearer-token', 'oauth-required', 'oauth-authorized', 'oauth-expired', 'unavailable']);
export type McpAuthStatus = v.InferOutput<typeof McpAuthStatus>;

/** Part B "MCP inspection". */
export const McpInspection = v.object({
  serverId: v.pipe(v.string(), v.description('global:<name> or plugin:<pluginId>:<serverName>, each part URL-encoded')),
  locator: v.union([
    v.object({ source: v.literal('global'), name: v.string() }),
    v.object({ source: v.literal('plugin'), pluginId: v.string(), serverName: v.string() }),
  ]),
  runtimeName: v.string(),
  canonicalUrl: v.optional(v.string()),
  origin: v.string(),
  config: RedactedConfig,
  enabled: v.boolean(),
  editable: v.boolean(),
  authStatus: McpAuthStatus,
  checkedAt: v.optional(v.string()),
  error: v.optional(v.string()),
});
export const McpInspectionList = v.array(McpInspection);

export const McpTestBody = v.object({
  name: v.optional(McpServerName),
  server: v.optional(McpServerCreateBody),
  cwd: v.optional(PathString),
});
export const McpTestResult = v.object({
  success: v.boolean(),
  output: v.pipe(v.string(), v.description('the available tools, one a line, or the failure text')),
  tools: v.optional(v.array(v.object({ name: v.string(), description: v.optional(v.string()) }))),
});

export const McpInspectBody = v.object({
  targets: v.optional(boundedArray(McpLocator, 100)),
  cwd: v.optional(PathString),
});

export const McpAuthStatusesQuery = v.object({ cwd: v.optional(PathString), verify: v.optional(QueryBool) });
export const McpAuthStatusList = v.array(v.object({ name: v.string(), authStatus: McpAuthStatus, serverId: v.optional(v.string()), checkedAt: v.optional(v.string()), error: v.optional(v.string()) }));

export const McpAuthBeginBody = McpLocator;
export const McpAuthBeginResult = v.union([
  v.object({ status: v.literal('authorization-required'), flowId: v.string(), authorizationUrl: v.string() }),
  v.object({ status: v.literal('already-authorized') }),
]);
const FlowId = v.pipe(boundedString(LIMITS.idChars), v.description('from auth:begin'));
export const McpAuthCompleteBody = v.object({
  flowId: FlowId,
  timeoutMs: v.optional(v.pipe(intIn(1, 60 * 60 * 1000), v.description('wait at most this long (default 15 minutes)'))),
});
export const McpAuthCancelBody = v.object({ flowId: FlowId });
export const McpAuthResetBody = McpLocator;

/** The browser's redirect back to the daemon (no token: the state of a pending flow authorizes it). */
export const McpOAuthCallbackQuery = v.object({
  state: v.optional(Line),
  code: v.optional(Line),
  error: v.optional(Line),
  error_description: v.optional(Line),
});

/** Part B "MCP server (v1 view)". */
export const McpServerV1 = v.object({
  id: v.string(),
  name: v.string(),
  transport: v.picklist(['stdio', 'http', 'sse']),
  status: v.picklist(['connected', 'connecting', 'disconnected', 'error']),
  last_error: v.optional(v.string()),
  tool_count: v.number(),
});
export type McpServerV1 = v.InferOutput<typeof McpServerV1>;
export const McpServerV1List = v.object({ servers: v.array(McpServerV1) });
export const McpServerIdParams = v.object({ mcp_server_id: Id });
export const McpRestartResult = v.object({ restarting: v.literal(true) });
