import * as v from 'valibot';
import { Id, LIMITS, boundedString } from './common.ts';

/** Part B "Plugin summary". */
export const PluginSummary = v.object({
  id: v.string(),
  displayName: v.string(),
  version: v.optional(v.string()),
  enabled: v.boolean(),
  state: v.pipe(v.picklist(['ok', 'error']), v.description('`error`: the plugin folder no longer loads (its manifest is missing or broken)')),
  skillCount: v.number(),
  mcpServerCount: v.number(),
  enabledMcpServerCount: v.number(),
  hookCount: v.number(),
  commandCount: v.number(),
  hasErrors: v.pipe(v.boolean(), v.description('some part did not load (a bad MCP entry, a bad hook, a bad manifest)')),
  source: v.picklist(['local-path', 'zip-url', 'repo']),
  originalSource: v.optional(v.string()),
  repo: v.optional(v.object({
    owner: v.string(),
    repo: v.string(),
    ref: v.object({ kind: v.picklist(['branch', 'tag', 'sha']), value: v.string() }),
    installedSha: v.optional(v.string()),
  })),
});
export type PluginSummary = v.InferOutput<typeof PluginSummary>;

export const PluginList = v.object({ plugins: v.array(PluginSummary) });

export const PluginInstallBody = v.object({
  source: v.pipe(boundedString(LIMITS.lineChars), v.minLength(1, 'must not be empty'),
    v.description('an absolute local path, an http(s) URL to a zip archive, or https://<host>/<owner>/<repo> optionally pinned with /tree/<ref>, /releases/tag/<tag> or /commit/<sha>')),
});

export const PluginIdParams = v.object({ plugin_id: Id });

export const PluginActionResult = v.object({ ok: v.literal(true) });

/** event.plugin.changed: which plugin and what happened (clients read no field). */
export const PluginChangedPayload = v.object({
  plugin_id: v.string(),
  change: v.picklist(['installed', 'enabled', 'disabled', 'removed']),
});

/** Part B "Marketplace entry". */
export const MarketplaceEntry = v.object({
  id: v.string(),
  tier: v.picklist(['official', 'curated', 'third-party']),
  displayName: v.string(),
  description: v.optional(v.string()),
  homepage: v.optional(v.string()),
  keywords: v.optional(v.array(v.string())),
  version: v.optional(v.string()),
  source: v.pipe(v.string(), v.description('what POST /api/v1/plugins takes (`capability:<id>` for capability rows: install those with POST capabilities/{id}:install)')),
  installed: v.optional(v.object({ version: v.optional(v.string()), enabled: v.boolean() })),
  updateAvailable: v.optional(v.boolean()),
  capabilityId: v.optional(v.string()),
});
export type MarketplaceEntry = v.InferOutput<typeof MarketplaceEntry>;

export const MarketplaceList = v.object({ entries: v.array(MarketplaceEntry) });
