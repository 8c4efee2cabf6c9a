import type { PromptInput } from '../../../protocol/schemas/prompts.ts';
import { CAPABILITIES } from '../../capabilities/defs.ts';
import { CapabilityService } from '../../capabilities/service.ts';
import { ConfigWatchers } from '../../config/watchers.ts';
import { acceptPrompt, type IntakeDeps } from '../../engine/prompt-intake.ts';
import { createAutoTitle, type AutoTitle } from '../../engine/titles/auto.ts';
import { GoalDriver } from '../../goals/driver.ts';
import { McpManagement } from '../../mcp/management.ts';
import { OAuthFlows } from '../../mcp/oauth-flows.ts';
import { UserMcpFile } from '../../mcp/user-file.ts';
import { SNAPSHOT_PATH } from '../../providers/catalog/directory.ts';
import { ModelPricing } from '../../providers/catalog/pricing.ts';
import { SearchService, searchIndexDir } from '../../search/service.ts';
import { TerminalService } from '../../terminals/service.ts';
import { NodeDirectory } from '../../nodes/directory.ts';
import type { OwnerLookup } from '../../nodes/types.ts';
import type { Core } from '../core.ts';
import type { ServeOptions } from '../options.ts';
import { releaseSemiSpaceFlagForWorkers } from '../worker-heap.ts';

/** Phase 4: the parts only the daemon has (print mode runs the engine without them). */
export interface DaemonParts {
  /** PTY terminals of this daemon (live state). */
  terminals: TerminalService;
  /** Capabilities (computer use, browser extension): checks and background installs. */
  capabilities: CapabilityService;
  /** Prices of well-known models (the built-in catalog snapshot): the snapshot's usage total_cost_usd. */
  pricing: ModelPricing;
  /** /api/v2/mcp: the layers' catalog, the user file, probes. */
  mcpManagement: McpManagement;
  configWatchers: ConfigWatchers;
  /** OAuth flows of MCP servers. */
  mcpOAuth: OAuthFlows;
  /** Cross-session search (POST /api/v1/search; docs/search.md). */
  search: SearchService;
  autoTitle: AutoTitle;
  /** Goals that drive the loop (docs/goals.md). */
  goals: GoalDriver;
  /** PostgreSQL: the nodes sharing the journal, this one's row among them (started once the server listens). */
  nodes?: NodeDirectory;
  /** Which node owns a session's runtime: commands for a session owned elsewhere are forwarded there (src/http/forward.ts). */
  owners: OwnerLookup;
}

export interface DaemonOptions {
  options: ServeOptions;
  /** Where MCP OAuth redirects land: this daemon's loopback callback, known once it listens. */
  redirectUrl(): string;
  /** Which node owns each session; default: the session leases (tests pass a stub). */
  owners?: OwnerLookup;
}

/** Builds the daemon's own parts on the engine; once the goals exist, what the last run left open is settled. */
export async function buildDaemonParts(core: Core, o: DaemonOptions): Promise<DaemonParts> {
  const { home, journal, config, mcp, grants, clock, ids, log } = core;
  const terminals = new TerminalService({ journal, options: o.options, clock, ids, log });
  const capabilities = new CapabilityService({ home, journal, log, defs: CAPABILITIES, stepDelayMs: core.settings.capabilityStepDelayMs });
  const pricing = await ModelPricing.load(SNAPSHOT_PATH).catch((err: unknown) => {
    log.warn({ err: (err as Error).message, path: SNAPSHOT_PATH }, 'model prices unreadable: usage total_cost_usd stays absent');
    return new ModelPricing(new Map());
  });
  const mcpManagement = new McpManagement({ mcp, file: new UserMcpFile(home), grants, clock });
  // `[watch] enabled`: config.toml, the MCP config and local.toml reloaded when edited (src/config/watchers.ts).
  const configWatchers = new ConfigWatchers({ home, config, workspaces: core.workspaces, mcp, log });
  configWatchers.sync();
  const mcpOAuth = new OAuthFlows({
    grants, ids, log, redirectUrl: o.redirectUrl, clientName: () => config.current().identity.name,
    authorized: (key) => mcp.grantAuthorized(key), reset: (key) => mcp.grantReset(key),
  });
  const search = searchService(core, o.options);
  const autoTitle = createAutoTitle({ journal, sessions: core.sessions, workspaces: core.workspaces, instances: core.instances, config, auth: core.auth, clients: core.clients, clock, log });
  // Goals' continuations go through the prompt intake like any prompt; a goal left active by the last run is paused
  // (before its turn ends) as the rest of what it left open is settled.
  const intake: IntakeDeps = core;
  const goals = new GoalDriver({
    journal, sessions: core.sessions, engine: core.engine, log, submit: (sid, text) => acceptPrompt(intake, sid, { content: [{ type: 'text', text }] } as PromptInput, 'goal'),
  });
  await core.settleAtStart(goals);
  goals.seed();
  // Several daemons on one PostgreSQL journal (docs/scale-out.md): this node's row and the other nodes' URLs.
  const nodes = core.pool && new NodeDirectory({ pool: core.pool, nodeId: core.nodeId, ttlMs: core.settings.leaseTtlMs, log });
  // Who runs each session: the session leases (src/nodes/leases.ts), unless a test passes its own lookup.
  const owners = o.owners ?? core.leases;
  return { terminals, capabilities, pricing, mcpManagement, configWatchers, mcpOAuth, search, autoTitle, goals, nodes, owners };
}

/**
 * The search index (a worker thread with [database] search = true); built from the journal once the subscribers run.
 * With the worker, the daemon's `--max-semi-space-size` is cleared for isolates created from now on, so the
 * worker's own young generation (workerYoungMb) holds; the main thread keeps its 8 MB semi-spaces. Process-wide:
 * any later worker gets V8's default instead (src/app/worker-heap.ts says why; test/search/worker-heap.test.ts).
 */
function searchService(core: Core, options: ServeOptions): SearchService {
  const useWorker = core.config.current().database.search;
  if (useWorker) releaseSemiSpaceFlagForWorkers();
  return new SearchService({
    journal: core.journal, sessions: core.sessions, engine: core.engine, ids: core.ids, log: core.log, useWorker, budgets: core.settings.search.budgets,
    workerYoungMb: core.settings.search.workerYoungMb, dir: searchIndexDir(core.home, core.primary.id), rebuild: options.rebuildProjections,
  });
}
