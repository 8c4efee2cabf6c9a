import type { PromptInput } from '../../../protocol/schemas/prompts.ts';
import { AgentCatalog } from '../../agents/catalog.ts';
import { AuthService } from '../../auth/service.ts';
import { ClientCache } from '../../engine/model-resolve.ts';
import { acceptPrompt, type IntakeDeps } from '../../engine/prompt-intake.ts';
import { EngineRegistry, type LoadedRuntimes } from '../../engine/runtime-registry.ts';
import { VolatileBus } from '../../events/volatile-bus.ts';
import { HookRunner } from '../../hooks/runner.ts';
import { GrantStore } from '../../mcp/grants.ts';
import { McpService } from '../../mcp/service.ts';
import { ImagePipeline } from '../../media/images/pipeline.ts';
import { PermissionService } from '../../permissions/service.ts';
import { PluginStore } from '../../plugins/store.ts';
import type { ContractChecker } from '../../../protocol/contract-check.ts';
import { QuestionService } from '../../questions/service.ts';
import { LiveSessions } from '../../sessions/live.ts';
import { TaskNotifier } from '../../tasks/notify.ts';
import { TaskService } from '../../tasks/service.ts';
import { followUpMetadata, TaskWakeups } from '../../tasks/wakeups.ts';
import { BuiltinToolExecutor, type ToolReplay } from '../../tools/executor.ts';
import { ReadStamps } from '../../tools/read-stamps.ts';
import { BUILTIN_TOOLS } from '../../tools/registry.ts';
import { UploadService } from '../../uploads/service.ts';
import { WorkspaceDirs } from '../../workspaces/extra-dirs.ts';
import { Instances } from '../instances.ts';
import { SERVER_VERSION } from '../version.ts';
import type { ReadModels } from './read-models.ts';
import type { Storage } from './storage.ts';

export interface EngineOptions {
  checker?: ContractChecker;
  /** `svc-code replay`: model clients that serve recorded answers, and tool calls answered from the record (docs/replay.md). */
  replay?: { clients: ClientCache; tools?: ToolReplay };
  /** Where MCP OAuth redirects land (the daemon's loopback callback once it listens; print mode has none). */
  mcpRedirectUrl(): string;
  /** Whether finished background work may start a follow-up turn now (src/tasks/wakeups.ts); default always. */
  admitFollowUp?(sessionId: string): boolean;
}

/** This process among the others on the home, and the stores and caches that need no other part. */
export interface BaseParts {
  serverId: string;
  startedAt: Date;
  instances: Instances;
  bus: VolatileBus;
  /** Uploaded files (POST /api/v1/files), also looked up for prompt media `{kind:file, file_id}`. */
  uploads: UploadService;
  /** OAuth logins and access tokens of the managed provider. */
  auth: AuthService;
  /** add-dir runtime state: in-memory directories per workspace. */
  workspaceDirs: WorkspaceDirs;
  /** Live state of loaded sessions (busy, pending interaction, bound model). */
  live: LiveSessions;
  /** Model clients shared by every runtime, the prompt intake and title generation. */
  clients: ClientCache;
  /** Prompt images scaled to the model's limits ([image]; src/media/images/). */
  images: ImagePipeline;
}

/** What tools wait on: background tasks and their notes, approvals, questions. */
export interface GateParts {
  runtimes: LoadedRuntimes;
  notes: TaskNotifier;
  /** Background Bash tasks and subagents of live sessions. */
  tasks: TaskService;
  /** Permission gate of tool calls and pending approvals (see src/permissions/types.ts). */
  permissions: PermissionService;
  /** AskUserQuestion: pending questions of tool calls. */
  questions: QuestionService;
}

/** Plugins, hooks, MCP servers, agents, the tools and the engine that runs them. */
export interface RunParts {
  /** Installed plugins (docs/plugins.md). */
  plugins: PluginStore;
  hooks: HookRunner;
  grants: GrantStore;
  /** MCP servers of live sessions (start and stop with the runtime; docs/mcp.md). */
  mcp: McpService;
  /** What each agent last read of each file (the Edit/Write staleness guard); a deleted session's go with it. */
  stamps: ReadStamps;
  /** Custom agents from agent files: prompt profiles and Agent subagent types (docs/agents.md). */
  agents: AgentCatalog;
  tools: BuiltinToolExecutor;
  /** Agent runtimes of live sessions (prompt queues, turn loops). */
  engine: EngineRegistry;
}

/** Phase 3: the engine, without transports. */
export interface EngineParts extends BaseParts, GateParts, RunParts {
  /** Follow-up turns of idle sessions whose background work ended (a reaction: the caller registers `onCommitted`). */
  wakeups: TaskWakeups;
}

type Below = Storage & ReadModels;

/**
 * Builds every part of the engine with the collaborators it declares, in dependency order (docs/architecture.md
 * "Wiring"). What a previous run left open is settled later, once the goals exist (src/app/core.ts `settleAtStart`).
 */
export async function buildEngine(below: Below, o: EngineOptions): Promise<EngineParts> {
  const base = await baseParts(below, o);
  const gates = gateParts({ ...below, ...base });
  const run = await runParts({ ...below, ...base, ...gates }, o);
  const parts = { ...below, ...base, ...gates, ...run };
  const intake: IntakeDeps = parts;
  // Background work that ends while the agent is idle wakes it: the notes become a follow-up prompt (origin `task`).
  const wakeups = new TaskWakeups({
    notes: gates.notes, sessions: below.sessions, live: base.live, journal: below.journal, engine: run.engine, log: below.log,
    ...(o.admitFollowUp ? { admit: o.admitFollowUp } : {}),
    submit: (sid, f) => acceptPrompt(intake, sid, { content: f.notes.flatMap((m) => m.content) } as PromptInput, { kind: 'task', taskIds: f.taskIds, metadata: followUpMetadata(f) }),
  });
  return { ...base, ...gates, ...run, wakeups };
}

async function baseParts(b: Below, o: EngineOptions): Promise<BaseParts> {
  const { home, journal, sessions, workspaces, config, clock, ids, log, settings } = b;
  const serverId = ids.next('srv');
  const startedAt = clock.now();
  const instances = new Instances({ home, serverId, primary: b.primary, journal, sessions, workspaces, clock, log });
  const bus = new VolatileBus({ checker: o.checker });
  const uploads = await UploadService.open({ home, journal, clock, ids, log, limits: settings.uploads });
  const auth = new AuthService({ home, config, clock, ids, log, oauthEnv: settings.oauth });
  const workspaceDirs = new WorkspaceDirs();
  const live = new LiveSessions();
  const clients = o.replay?.clients ?? new ClientCache();
  const images = new ImagePipeline({ log, settings: () => config.current().image });
  return { serverId, startedAt, instances, bus, uploads, auth, workspaceDirs, live, clients, images };
}

function gateParts(b: Below & BaseParts): GateParts {
  const { home, journal, bus, sessions, workspaces, live, config, clock, ids, log } = b;
  const runtimes: LoadedRuntimes = new Map();
  const notes = new TaskNotifier({ journal, clock, ids, log });
  const tasks = new TaskService({ home, journal, bus, sessions, live, config, clock, ids, log, notes });
  const permissions = new PermissionService({ journal, sessions, live, config, clock, ids, log, workspaces });
  const questions = new QuestionService({ journal, sessions, live, clock, ids, log });
  return { runtimes, notes, tasks, permissions, questions };
}

async function runParts(b: Below & BaseParts & GateParts, o: EngineOptions): Promise<RunParts> {
  const { home, journal, bus, config, sessions, workspaces, workspaceDirs, live, tasks, questions, permissions, auth, clock, ids, log } = b;
  const { engine: timings, pluginsAllowLoopbackHttp } = b.settings;
  // Plugins: their skills, MCP servers and hooks are read from the store's folder as each part needs them.
  const plugins = new PluginStore({ home, journal, clock, ids, log, allowLoopbackHttp: pluginsAllowLoopbackHttp });
  await plugins.open();
  const hooks = new HookRunner({ home, config, journal, log });
  const grants = new GrantStore(home, clock);
  const mcp = new McpService({
    home, config, sessions, workspaces, workspaceDirs, questions, grants, log, reconnect: timings.mcpReconnect, version: SERVER_VERSION,
    redirectUrl: o.mcpRedirectUrl,
  });
  // The tools, then the engine that runs them (its subagent launcher reaches the tools per call).
  const stamps = new ReadStamps();
  const agents = new AgentCatalog({ home, config, workspaces, log, knownTools: BUILTIN_TOOLS.map((t) => t.name) });
  const tools = new BuiltinToolExecutor({
    home, journal, bus, config, sessions, workspaces, workspaceDirs, live, tasks, questions, permissions, auth, log, external: mcp, hooks,
    fileHistory: b.fileHistory, replay: o.replay?.tools, webFetch: timings.webFetch, stamps, agents,
  });
  const engine = new EngineRegistry({
    home, journal, bus, clock, ids, uploads: b.uploads, images: b.images, sessions, live, config, auth, log, clients: b.clients, tools, tasks,
    runtimes: b.runtimes, lifecycle: mcp, hooks, notes: b.notes, timings, tracer: b.tracer, leases: b.leases,
  });
  return { plugins, hooks, grants, mcp, stamps, agents, tools, engine };
}
