import { mkdir, rm } from 'node:fs/promises';
import { exportFile, slotsDir, type Slot } from '../../journal/slots.ts';
import { CommitWaits } from '../../journal/commit-waits.ts';
import type { ContractChecker } from '../../protocol/contract-check.ts';
import type { Projections } from './projections.ts';
import type { WireContext } from '../../protocol/events/wire.ts';
import type { PromptInput } from '../../protocol/schemas/prompts.ts';
import { journalFsync, openHomeJournal, startProjections } from './journal-boot.ts';
import { ConfigService } from '../config/service.ts';
import { LiveSessions } from '../sessions/live.ts';
import { TaskNotifier } from '../tasks/notify.ts';
import { followUpMetadata, TaskWakeups } from '../tasks/wakeups.ts';
import { TaskService } from '../tasks/service.ts';
import { WorkspaceDirs } from '../workspaces/extra-dirs.ts';
import { UploadService } from '../uploads/service.ts';
import { AuthService } from '../auth/service.ts';
import { ClientCache } from '../engine/model-resolve.ts';
import { EngineRegistry, type LoadedRuntimes } from '../engine/runtime-registry.ts';
import { BuiltinToolExecutor, type ToolReplay } from '../tools/executor.ts';
import { ReadStamps } from '../tools/read-stamps.ts';
import { ImagePipeline } from '../media/images/pipeline.ts';
import { acceptPrompt } from '../engine/prompt-intake.ts';
import { webFetchLimitsFromEnv } from '../webfetch/page.ts';
import { PermissionService } from '../permissions/service.ts';
import { QuestionService } from '../questions/service.ts';
import { McpService } from '../mcp/service.ts';
import { GrantStore } from '../mcp/grants.ts';
import { reconnectPolicyFromEnv } from '../mcp/reconnect.ts';
import { PluginStore } from '../plugins/store.ts';
import { HookRunner } from '../hooks/runner.ts';
import { AgentCatalog } from '../agents/catalog.ts';
import { BUILTIN_TOOLS } from '../tools/registry.ts';
import { EventJournal } from '../events/journal.ts';
import { VolatileBus } from '../events/volatile-bus.ts';
import { systemClock, type Clock } from '../lib/clock.ts';
import { ulidIds, type Ids } from '../lib/ids.ts';
import { Instances } from './instances.ts';
import type { Logger } from '../lib/logger.ts';
import { SERVER_VERSION } from './version.ts';

/**
 * The engine without its transports: what `svc-code serve` (startServer) and `svc-code -p` (print mode) both run.
 * Built here once, in dependency order (docs/architecture.md "Wiring"), so the daemon and a print run are the
 * same engine on the same journal; startServer adds the HTTP server, the WebSocket hub, the search index, goals
 * and auto titles; print mode adds only its own reactions (src/cli/print/).
 */
export interface CoreOptions {
  home: string;
  log: Logger;
  /** Stamps every time the engine records (tests pass one they move). */
  clock?: Clock;
  /** Mints every id (tests may pass a deterministic one). */
  ids?: Ids;
  /** Test runs: every appended and published event is checked against the registry (docs/events.md). */
  checker?: ContractChecker;
  /** Rebuild every projection from the journal at start. */
  rebuildProjections?: boolean;
  /** `svc-code replay`: model clients that serve recorded answers, and tool calls answered from the record (docs/replay.md). */
  replay?: { clients: ClientCache; tools?: ToolReplay };
  /** Base delay of model-request retries (ms; default: `SVC_CODE_RETRY_BASE_MS`, else 500). Replay passes 0. */
  retryBaseMs?: number;
  /** The environment config overrides are read from (default process.env; print mode adds its timeout defaults). */
  configEnv?: NodeJS.ProcessEnv;
  /** Where MCP OAuth redirects land (the daemon's loopback callback once it listens; print mode has none). */
  mcpRedirectUrl(): string;
  /**
   * Whether background work that ended while the session's agent is idle may start a follow-up turn now
   * (src/tasks/wakeups.ts); when it may not, the notes keep waiting for the session's next turn. Default: always
   * (the daemon). Print mode: never with `print_background_mode` exit or drain, up to `print_max_turns` with steer.
   */
  admitFollowUp?(sessionId: string): boolean;
}

/** The parts of the engine, by name. */
export interface Core extends Omit<Projections, 'all'> {
  home: string;
  serverId: string;
  startedAt: Date;
  clock: Clock;
  ids: Ids;
  log: Logger;
  /** The journal slot this process writes to. */
  primary: Slot;
  journal: EventJournal;
  bus: VolatileBus;
  config: ConfigService;
  /** Waits for a stream's events to be on disk (reads of on-disk records bounded by the head). */
  commits: CommitWaits;
  instances: Instances;
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
  runtimes: LoadedRuntimes;
  notes: TaskNotifier;
  /** Follow-up turns of idle sessions whose background work ended (a reaction: the caller registers `onCommitted`). */
  wakeups: TaskWakeups;
  /** Background Bash tasks and subagents of live sessions. */
  tasks: TaskService;
  /** Permission gate of tool calls and pending approvals (see src/permissions/types.ts). */
  permissions: PermissionService;
  /** AskUserQuestion: pending questions of tool calls. */
  questions: QuestionService;
  /** Installed plugins (docs/plugins.md). */
  plugins: PluginStore;
  hooks: HookRunner;
  /** Custom agents from agent files: prompt profiles and Agent subagent types (docs/agents.md). */
  agents: AgentCatalog;
  grants: GrantStore;
  /** MCP servers of live sessions (start and stop with the runtime; docs/mcp.md). */
  mcp: McpService;
  /** Prompt images scaled to the model's limits ([image]; src/media/images/). */
  images: ImagePipeline;
  /** What each agent last read of each file (the Edit/Write staleness guard); a deleted session's go with it. */
  stamps: ReadStamps;
  tools: BuiltinToolExecutor;
  /** What v1 frames read besides their events: their place in their agent's turns, the session's cwd (spec/clients.md F). */
  wire: WireContext;
  /** Agent runtimes of live sessions (prompt queues, turn loops). */
  engine: EngineRegistry;
  /** Stops the engine's work: turns (left open for the next start), MCP servers, tasks (but those kept alive), notes. */
  stopWork(): Promise<void>;
  /** Closes the stores, the journal last; the slot's export is removed (the slot is adopted by the next daemon). */
  closeStores(): Promise<void>;
}

/**
 * Builds the engine on the home's journal: the slots claimed and the projections loaded (src/app/journal-boot.ts),
 * every part constructed with the collaborators it declares, and what a previous run left open settled (approvals,
 * questions, interrupted turns). Nothing reacts to committed events yet: the caller registers its subscribers.
 */
export async function startCore(opts: CoreOptions): Promise<Core> {
  const { home, checker, log } = opts;
  const clock = opts.clock ?? systemClock;
  const ids = opts.ids ?? ulidIds();
  await mkdir(home, { recursive: true });

  // The journal, the config that journals its changes, and the projections (derived in each append's batch).
  const opened = await openHomeJournal(home, { ids, clock, checker, fsync: journalFsync() });
  const { primary, journal } = opened;
  const config = await ConfigService.load(home, { journal, log }, opts.configEnv ? { env: opts.configEnv } : undefined);
  const projections = await startProjections(home, opened, { log, rebuild: opts.rebuildProjections });
  const { sessions, workspaces, turnIndex } = projections;
  const wire: WireContext = { place: (...at) => turnIndex.place(...at), cwd: (id) => sessions.get(id)?.cwd };
  // Readers that wait for a stream's events to be on disk (the snapshot's messages).
  const commits = new CommitWaits(journal);

  // This process among the others on the home, and the stores that need no other part.
  const serverId = ids.next('srv');
  const startedAt = clock.now();
  const instances = new Instances({ home, serverId, primary, journal, sessions, workspaces, clock, log });
  const bus = new VolatileBus({ checker });
  const uploads = await UploadService.open({ home, journal, clock, ids, log });
  const auth = new AuthService({ home, config, clock, ids, log });
  const workspaceDirs = new WorkspaceDirs();
  const live = new LiveSessions();
  const clients = opts.replay?.clients ?? new ClientCache();
  const images = new ImagePipeline({ log, settings: () => config.current().image });

  // Tasks, approvals and questions: what tools wait on.
  const runtimes: LoadedRuntimes = new Map();
  const notes = new TaskNotifier({ journal, clock, ids, log });
  const tasks = new TaskService({ home, journal, bus, sessions, live, config, clock, ids, log, notes });
  const permissions = new PermissionService({ journal, sessions, live, config, clock, ids, log, workspaces });
  const questions = new QuestionService({ journal, sessions, live, clock, ids, log });

  // Plugins: their skills, MCP servers and hooks are read from the store's folder as each part needs them.
  const plugins = new PluginStore({ home, journal, clock, ids, log });
  await plugins.open();
  const hooks = new HookRunner({ home, config, journal, log });

  // MCP servers.
  const grants = new GrantStore(home, clock);
  const mcp = new McpService({
    home, config, sessions, workspaces, workspaceDirs, questions, grants, log, reconnect: reconnectPolicyFromEnv(process.env), version: SERVER_VERSION,
    redirectUrl: opts.mcpRedirectUrl,
  });

  // The tools, then the engine that runs them (its subagent launcher reaches the tools per call).
  const stamps = new ReadStamps();
  const agents = new AgentCatalog({ home, config, workspaces, log, knownTools: BUILTIN_TOOLS.map((t) => t.name) });
  const tools = new BuiltinToolExecutor({
    home, journal, bus, config, sessions, workspaces, workspaceDirs, live, tasks, questions, permissions, auth, log, external: mcp, hooks,
    fileHistory: projections.fileHistory, replay: opts.replay?.tools, webFetch: webFetchLimitsFromEnv(process.env), stamps, agents,
  });
  const engine = new EngineRegistry({
    home, journal, bus, clock, ids, uploads, images, sessions, live, config, auth, log, clients, tools, tasks, runtimes, lifecycle: mcp, hooks, notes,
    ...(opts.retryBaseMs !== undefined ? { retryBaseMs: opts.retryBaseMs } : {}),
  });

  // Startup recovery: what a previous run left open is settled before anything is served.
  await permissions.recover();
  await questions.recover();
  await engine.recoverInterrupted();

  const { all: _all, ...reads } = projections;
  const parts = {
    ...reads, home, serverId, startedAt, clock, ids, log, primary, journal, bus, config, commits, instances, uploads, auth, workspaceDirs, live,
    clients, runtimes, notes, tasks, permissions, questions, plugins, hooks, agents, grants, mcp, images, stamps, tools, wire, engine,
  };
  // Background work that ends while the agent is idle wakes it: the notes become a follow-up prompt (origin `task`).
  const wakeups = new TaskWakeups({
    notes, sessions, live, journal, engine, log, ...(opts.admitFollowUp ? { admit: opts.admitFollowUp } : {}),
    submit: (sid, f) => acceptPrompt(parts, sid, { content: f.notes.flatMap((m) => m.content) } as PromptInput, { kind: 'task', taskIds: f.taskIds, metadata: followUpMetadata(f) }),
  });
  return { ...parts, wakeups, ...closers(parts) };
}

/** The core's stop, in two halves: the engine's work (the caller's transports stop in between), then the stores. */
function closers(p: Omit<Core, 'wakeups' | 'stopWork' | 'closeStores'>): Pick<Core, 'stopWork' | 'closeStores'> {
  return {
    async stopWork() {
      await p.instances.stop();
      p.questions.close();
      await p.engine.closeAll();
      await p.mcp.close();
      await p.tasks.closeAll();
      await p.notes.close();
      await p.auth.close();
    },
    async closeStores() {
      await p.config.close();
      await p.uploads.close();
      await p.journal.close();
      await rm(exportFile(slotsDir(p.home), p.primary.id), { force: true });
    },
  };
}
