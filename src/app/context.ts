import type { SessionIndex } from '../../projections/session-index/session-index.ts';
import type { WorkspaceRegistry } from '../../projections/workspaces/workspace-registry.ts';
import type { MessageLog } from '../../projections/messages/message-log.ts';
import type { UsageProjection } from '../../projections/usage/session-usage.ts';
import type { GuiStore } from '../../projections/gui-store/gui-store.ts';
import type { ConfigService } from '../config/service.ts';
import type { LiveSessions } from '../sessions/live.ts';
import type { TerminalService } from '../terminals/service.ts';
import type { TaskService } from '../tasks/service.ts';
import type { WorkspaceDirs } from '../workspaces/extra-dirs.ts';
import type { Logger } from './logger.ts';
import type { ServeOptions } from './options.ts';
import type { Instances } from './instances.ts';
import type { UploadService } from '../uploads/service.ts';
import type { AuthService } from '../auth/service.ts';
import type { EngineRegistry } from '../engine/runtime-registry.ts';
import type { PermissionService } from '../permissions/service.ts';
import type { QuestionService } from '../questions/service.ts';
import type { EventJournal } from '../events/journal.ts';
import type { PayloadOf, VolatileType } from '../events/registry.ts';
import type { Clock } from '../lib/clock.ts';
import type { Ids } from '../lib/ids.ts';
import type { VolatileBus } from '../events/volatile-bus.ts';
import type { ClientCache } from '../engine/model-resolve.ts';

export type { Clock };

/** Everything route factories and services may use; built once by createServer. */
export interface AppContext {
  home: string;
  serverId: string;
  version: string;
  startedAt: Date;
  options: ServeOptions;
  token: string;
  clock: Clock;
  ids: Ids;
  bus: VolatileBus;
  clients: ClientCache;
  log: Logger;
  journal: EventJournal;
  sessions: SessionIndex;
  /** Main-agent messages per session (read from LevelDB by range, not held in memory). */
  messages: MessageLog;
  /** Token usage, context measure and in-flight turn per session. */
  usage: UsageProjection;
  workspaces: WorkspaceRegistry;
  /** add-dir runtime state: in-memory directories per workspace. */
  workspaceDirs: WorkspaceDirs;
  gui: GuiStore;
  live: LiveSessions;
  config: ConfigService;
  instances: Instances;
  /** Uploaded files (POST /api/v1/files), also looked up for prompt media `{kind:file, file_id}`. */
  uploads: UploadService;
  /** OAuth logins and access tokens of the managed provider (`auth.getAccessToken(provider)`). */
  auth: AuthService;
  /** Agent runtimes of live sessions (prompt queues, turn loops). */
  engine: EngineRegistry;
  /** Permission gate of tool calls and pending approvals (see src/permissions/types.ts). */
  permissions: PermissionService;
  /** AskUserQuestion: pending questions of tool calls (see src/questions/service.ts). */
  questions: QuestionService;
  /** PTY terminals of this daemon (live state). */
  terminals: TerminalService;
  /** Background Bash tasks of live sessions (issue 4). */
  tasks: TaskService;
  /** Connections of the WebSocket hub, for GET /api/v1/connections. */
  connections(): ConnectionInfo[];
  /** Sends a volatile frame to a session's subscribers (never journaled, never replayed). */
  publishVolatile<T extends VolatileType>(sessionId: string, type: T, payload: PayloadOf<T>, offset?: number): void;
  /** Asks the server to stop (POST /api/v1/shutdown). */
  requestShutdown(): void;
}

export interface ConnectionInfo {
  id: string;
  connected_at: string;
  remote_address: string | null;
  user_agent: string | null;
  has_client_hello: boolean;
  subscriptions: string[];
}
