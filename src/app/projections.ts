import type { Journal } from '../../journal/journal.ts';
import { fileHistoryProjection, type FileHistoryProjection } from '../../projections/file-history/projection.ts';
import { GuiStore } from '../../projections/gui-store/gui-store.ts';
import { MessageLog } from '../../projections/messages/message-log.ts';
import type { Projection } from '../../projections/projection.ts';
import { SessionIndex } from '../../projections/session-index/session-index.ts';
import { transcriptProjection, type TranscriptProjection } from '../../projections/transcript/projection.ts';
import { TurnIndex } from '../../projections/turn-index/turn-index.ts';
import { UsageProjection } from '../../projections/usage/session-usage.ts';
import { WorkspaceRegistry } from '../../projections/workspaces/workspace-registry.ts';

export interface Projections {
  sessions: SessionIndex;
  workspaces: WorkspaceRegistry;
  gui: GuiStore;
  /** Main-agent messages per session (read from LevelDB by range, not held in memory). */
  messages: MessageLog;
  /** Token usage, context measure and in-flight turn per session. */
  usage: UsageProjection;
  /** Transcripts of the sessions read most recently (folded on first read, then kept up to date). */
  transcripts: TranscriptProjection;
  /** Per-turn file histories of the sessions read most recently (folded on first read, then kept up to date). */
  fileHistory: FileHistoryProjection;
  /** Each agent's turns and steps by stream position: the ordinals of v1 frames (spec/clients.md F). */
  turnIndex: TurnIndex;
  /** In the order the runner applies them. */
  all: Projection[];
}

/** The journal's read models (docs/journal.md "Projections"): built by the server and by `svc-code reindex`. */
export function createProjections(journal: Journal): Projections {
  const sessions = new SessionIndex();
  const workspaces = new WorkspaceRegistry();
  const gui = new GuiStore();
  const messages = new MessageLog(journal.store);
  const usage = new UsageProjection();
  const transcripts = transcriptProjection(journal);
  const fileHistory = fileHistoryProjection(journal);
  const turnIndex = new TurnIndex();
  return {
    sessions, workspaces, gui, messages, usage, transcripts, fileHistory, turnIndex,
    all: [sessions, workspaces, gui, messages, usage, transcripts, fileHistory, turnIndex],
  };
}
