import type { CommitOrigin, Journal } from '../../journal/journal.ts';
import type { JournalEvent } from '../../journal/types.ts';
import type { CommitWaits } from '../../journal/commit-waits.ts';
import type { AutoTitle } from '../engine/titles/auto.ts';
import type { EngineRegistry } from '../engine/runtime-registry.ts';
import type { TaskWakeups } from '../tasks/wakeups.ts';
import type { TaskService } from '../tasks/service.ts';
import type { TerminalService } from '../terminals/service.ts';
import type { WsHub } from '../ws/hub.ts';
import type { LiveTranscripts } from '../../projections/transcript/live/live-transcripts.ts';
import type { McpService } from '../mcp/service.ts';
import type { ConfigWatchers } from '../config/watchers.ts';
import type { GoalDriver } from '../goals/driver.ts';
import type { HookRunner } from '../hooks/runner.ts';
import type { Instances } from './instances.ts';
import type { SearchService } from '../search/service.ts';
import type { Logger } from '../lib/logger.ts';

/** A reaction to committed events: runs after each batch is on disk, never before. */
export interface CommittedSubscriber {
  name: string;
  onCommitted(events: JournalEvent[]): void | Promise<unknown>;
  /**
   * Also runs for the events another node committed to the shared PostgreSQL journal (journal/pg/follower.ts):
   * the readers (waits, live transcripts, WebSocket fan-out, search, watchers). A reaction that writes or runs a turn
   * (wakeups, goals, titles, runtimes) stays with the node that wrote, or two nodes would act on one event.
   */
  remote?: boolean;
  /** Instead, for the events another node committed: what a local-only reaction must still know of them (no action). */
  onFollowed?(events: JournalEvent[]): void;
}

/** What the engine's reactions read: the parts any process that runs turns has (the daemon, print mode). */
export interface EngineReactionParts {
  commits: Pick<CommitWaits, 'onCommitted'>;
  instances: Pick<Instances, 'onCommitted'>;
  wakeups: Pick<TaskWakeups, 'onCommitted'>;
  tasks: Pick<TaskService, 'onCommitted'>;
  engine: Pick<EngineRegistry, 'onCommitted'>;
  mcp: Pick<McpService, 'onCommitted'>;
  hooks: Pick<HookRunner, 'onCommitted'>;
}

/** The engine's reactions to committed events, each defined once; callers place them among their own. */
export function engineReactions(s: EngineReactionParts) {
  return {
    // Any batch: readers waiting for a stream's events to be on disk (the snapshot's messages) wake.
    commits: { name: 'commit waits', onCommitted: s.commits.onCommitted, remote: true },
    // Any change: the next reconcile republishes this process's slot export (docs/multi-instance.md).
    instances: { name: 'instance export', onCommitted: s.instances.onCommitted },
    // task.terminated, turn.ended, compaction end: task notes waiting while no turn runs or is queued start a follow-up turn.
    wakeups: { name: 'task wakeups', onCommitted: s.wakeups.onCommitted },
    // session.archived: the session's tasks are killed.
    tasks: { name: 'task cleanup', onCommitted: s.tasks.onCommitted },
    // session.created: the new session's runtime loads without reading the journal.
    engine: { name: 'runtime bookkeeping', onCommitted: s.engine.onCommitted },
    // workspace.trust_changed / event.plugin.changed: live sessions gain or lose project or plugin MCP servers.
    mcp: { name: 'mcp trust', onCommitted: s.mcp.onCommitted, remote: true },
    // event.plugin.changed: the hooks of enabled plugins are read again on the next tool call.
    hooks: { name: 'plugin hooks', onCommitted: s.hooks.onCommitted, remote: true },
  } satisfies Record<keyof EngineReactionParts, CommittedSubscriber>;
}

/**
 * Every reaction of the daemon to committed events, in the order they run: the engine's and the transports'.
 * Projections are not here: they are derived in the append's own batch (projections/runner.ts).
 */
export function committedSubscribers(s: EngineReactionParts & {
  terminals: Pick<TerminalService, 'onCommitted'>;
  liveTranscripts: Pick<LiveTranscripts, 'onCommitted'>;
  hub: Pick<WsHub, 'onCommitted'>;
  autoTitle: Pick<AutoTitle, 'onCommitted'>;
  configWatchers: Pick<ConfigWatchers, 'onCommitted'>;
  goals: Pick<GoalDriver, 'onCommitted' | 'onFollowed'>;
  search: Pick<SearchService, 'onCommitted'>;
}): CommittedSubscriber[] {
  const e = engineReactions(s);
  return [
    e.commits,
    e.instances,
    // session.archived: the session's terminals are closed.
    { name: 'terminals', onCommitted: s.terminals.onCommitted, remote: true },
    e.wakeups,
    e.tasks,
    e.engine,
    // The live transcripts (projections/transcript/live/): their ops batches leave before the event's durable frame.
    { name: 'live transcripts', onCommitted: s.liveTranscripts.onCommitted, remote: true },
    // Every event: durable frames to the WebSocket connections.
    { name: 'ws fan-out', onCommitted: s.hub.onCommitted, remote: true },
    // prompt.accepted of an untitled session: its first prompt titles it; turn.ended: a title is generated (auto_session_title).
    { name: 'auto titles', onCommitted: s.autoTitle.onCommitted },
    e.mcp,
    // A workspace registered, removed, trusted or untrusted: the config watchers follow its project files ([watch] enabled).
    { name: 'config watchers', onCommitted: s.configWatchers.onCommitted, remote: true },
    e.hooks,
    // turn.started / turn.ended / goal.updated: an active goal is counted and continued, or stopped (docs/goals.md).
    { name: 'goals', onCommitted: s.goals.onCommitted, onFollowed: s.goals.onFollowed },
    // Messages, titles, archive, undo, workspace deletion: the search index (docs/search.md).
    { name: 'search index', onCommitted: s.search.onCommitted, remote: true },
  ];
}

/**
 * Registers the subscribers on the journal's `committed` event as one listener; returns its
 * removal. A subscriber that throws (or rejects) is logged with its name: the journal's flush loop
 * and the subscribers after it carry on.
 */
export function registerSubscribers(journal: Journal, subscribers: readonly CommittedSubscriber[], log: Logger): () => void {
  const failed = (s: CommittedSubscriber) => (err: unknown) => log.error({ err, subscriber: s.name }, 'committed-event subscriber failed');
  const dispatch = (events: JournalEvent[], origin?: CommitOrigin): void => {
    for (const s of subscribers) {
      const remote = origin === 'remote';
      if (remote && !s.remote && !s.onFollowed) continue;
      try {
        const done = remote && s.onFollowed ? s.onFollowed(events) : s.onCommitted(events);
        if (done) done.catch(failed(s));
      } catch (err) {
        failed(s)(err);
      }
    }
  };
  journal.on('committed', dispatch);
  return () => journal.off('committed', dispatch);
}
