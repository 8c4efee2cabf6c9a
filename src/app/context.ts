import type { SessionIndex } from '../../projections/session-index/session-index.ts';
import type { WorkspaceRegistry } from '../../projections/workspaces/workspace-registry.ts';
import type { MessageLog } from '../../projections/messages/message-log.ts';
import type { UsageProjection } from '../../projections/usage/session-usage.ts';
import type { ConfigService } from '../config/service.ts';
import type { EngineRegistry } from '../engine/runtime-registry.ts';
import type { EventJournal } from '../events/journal.ts';
import type { Clock } from '../lib/clock.ts';
import type { PermissionService } from '../permissions/service.ts';
import type { QuestionService } from '../questions/service.ts';
import type { LiveSessions } from '../sessions/live.ts';
import type { TaskService } from '../tasks/service.ts';
import type { Instances } from './instances.ts';
import type { Logger } from './logger.ts';

/**
 * @deprecated Transitional, for the files the issue-12-projections branch owns and still passes
 * around as `app`: src/transcript/read.ts, src/http/routes/transcript.ts, src/http/routes/snapshot.ts,
 * src/ws/transcript-subscribe.ts. It names only what they use; startServer hands them its services.
 * Those files take explicit deps at the merge, and this file goes. Nothing else imports it.
 */
export interface AppContext {
  journal: EventJournal;
  sessions: SessionIndex;
  workspaces: WorkspaceRegistry;
  instances: Instances;
  live: LiveSessions;
  usage: UsageProjection;
  messages: MessageLog;
  config: ConfigService;
  tasks: TaskService;
  permissions: PermissionService;
  questions: QuestionService;
  engine: EngineRegistry;
  clock: Clock;
  log: Logger;
}
