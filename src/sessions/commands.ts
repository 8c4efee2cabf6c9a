import { eventDef } from '../../protocol/events/registry.ts';
import path from 'node:path';
import { assertPoolUsable } from '../agents/pool.ts';
import type { Ids } from '../lib/ids.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { ConfigService } from '../config/service.ts';
import type { EventJournal } from '../events/journal.ts';
import type { LiveSessions } from './live.ts';
import { GLOBAL_STREAM } from '../../journal/keys.ts';
import type { SessionRecord } from '../../projections/session-index/session-index.ts';
import type { SessionState } from '../../protocol/events/session.ts';
import { validationError } from '../../protocol/errors.ts';
import { LIMITS } from '../../protocol/schemas/common.ts';
import { assertJsonBounds } from '../../protocol/schemas/json-bounds.ts';
import { copySessionMedia, removeAllSessionMedia } from '../media/session-media.ts';
import { workspaceIdFor } from '../workspaces/ids.ts';
import { existingDirectory, findWorkspace, workspaceUpsertEvents } from '../workspaces/service.ts';
import { ensureNotBusy, findOwnedSession, type OwnedSessionLookup } from './lookup.ts';
import { toSessionObject } from './view.ts';
import type { EventType, NewStreamEvent } from '../../protocol/events/registry.ts';
import { known } from '../../protocol/events/known.ts';

/** What the session commands read, append to and stamp with. */
export interface SessionCommandDeps extends OwnedSessionLookup {
  journal: EventJournal;
  live: LiveSessions;
  config: ConfigService;
  clock: Clock;
  ids: Ids;
  /** Session media lives under `<home>/sessions-media/` (a fork copies it). */
  home: string;
  log: Logger;
}

/** Events every session creation carries besides its own stream's first event. */
function creationEvents(deps: Pick<SessionCommandDeps, 'sessions' | 'workspaces' | 'live' | 'clock'>, state: SessionState): NewStreamEvent[] {
  const ws = workspaceUpsertEvents(deps, deps.workspaces.get(state.workspace_id)?.root ?? state.cwd, { reopen: false, extraSessions: 1 });
  const record: SessionRecord = { ...state, has_prompt: Boolean(state.last_prompt) };
  return [
    { stream: state.id, type: 'session.created', payload: { session: state } },
    ...ws.events,
    { stream: GLOBAL_STREAM, type: 'event.session.created', payload: toSessionObject(record, deps.live) },
  ];
}

export interface CreateSessionInput {
  workspace_id?: string;
  metadata?: Record<string, unknown>;
  title?: string;
  agent_config?: Record<string, unknown>;
}

/** POST /api/v1/sessions: resolves (or registers) the workspace and starts a new stream. */
export async function createSession(deps: SessionCommandDeps, input: CreateSessionInput) {
  const cwdGiven = typeof input.metadata?.cwd === 'string' ? (input.metadata.cwd as string) : undefined;
  if (!input.workspace_id && !cwdGiven) {
    throw validationError([
      { field: 'workspace_id', message: 'workspace_id or metadata.cwd is required' },
      { field: 'metadata.cwd', message: 'workspace_id or metadata.cwd is required' },
    ]);
  }
  if (cwdGiven !== undefined && !path.isAbsolute(cwdGiven)) {
    throw validationError([{ field: 'metadata.cwd', message: 'must be an absolute path' }]);
  }
  let root: string;
  if (input.workspace_id) {
    const ws = findWorkspace(deps, input.workspace_id);
    if (cwdGiven !== undefined && path.resolve(cwdGiven) !== ws.root) {
      throw validationError([{ field: 'metadata.cwd', message: `must equal the workspace root ${ws.root}` }]);
    }
    root = await existingDirectory(ws.root, 'workspace_id');
  } else {
    root = await existingDirectory(cwdGiven!, 'metadata.cwd');
  }
  // Part B secondary_model rule 7: a session cannot start on an unusable subagent pool.
  assertPoolUsable(deps.config.current());
  const now = deps.clock.now().toISOString();
  const state: SessionState = {
    id: deps.ids.next('session'),
    // Registered on first use of a cwd: creationEvents emits event.workspace.created then.
    workspace_id: deps.workspaces.byRoot(root)?.id ?? workspaceIdFor(root),
    cwd: root,
    title: input.title ?? '',
    title_source: input.title ? 'custom' : 'none',
    created_at: now,
    updated_at: now,
    archived: false,
    metadata: { ...(input.metadata ?? {}), cwd: root },
    agent_config: input.agent_config ?? {},
    runtime_id: 'local',
  };
  await deps.journal.append(creationEvents(deps, state));
  return toSessionObject(deps.sessions.get(state.id)!, deps.live);
}

/** `:fork` and POST children: a new stream holding a copy of the source's history. */
export async function forkSession(
  deps: SessionCommandDeps,
  sourceId: string,
  input: { title?: string; metadata?: Record<string, unknown> },
  as: 'fork' | 'child',
) {
  const src = findOwnedSession(deps, sourceId);
  ensureNotBusy(deps, sourceId);
  assertPoolUsable(deps.config.current());
  const now = deps.clock.now().toISOString();
  const prefix = as === 'fork' ? 'Fork' : 'Child';
  const state: SessionState = {
    id: deps.ids.next('session'),
    workspace_id: src.workspace_id,
    cwd: src.cwd,
    title: input.title ?? `${prefix}: ${src.title || 'Untitled'}`,
    title_source: 'custom',
    created_at: now,
    updated_at: now,
    archived: false,
    last_prompt: src.last_prompt,
    last_turn_reason: src.last_turn_reason,
    metadata: { ...src.metadata, ...(input.metadata ?? {}), cwd: src.cwd },
    agent_config: { ...src.agent_config },
    forked_from: src.id,
    runtime_id: src.runtime_id,
  };
  if (input.metadata) assertJsonBounds(state.metadata, LIMITS.json, 'metadata', ' once merged with the source session\'s metadata');
  if (as === 'child') state.parent_id = src.id;
  if (state.last_prompt === undefined) delete state.last_prompt;
  if (state.last_turn_reason === undefined) delete state.last_turn_reason;
  // A fork copies the conversation, not the source's own lifecycle, its terminals or its broadcast status (work/status/meta name the source).
  const history = (await deps.journal.readStream(src.id))
    .filter((e) => !LIFECYCLE.has(known(e).type) && !e.type.startsWith('terminal.') && eventDef(e.type)?.receivers !== 'broadcast');
  // Copies of journaled events: they matched the registry when first appended.
  const copies = history.map((e) => ({ stream: state.id, type: e.type, payload: e.payload }) as NewStreamEvent);
  const [first, ...rest] = creationEvents(deps, state);
  // Copied prompts reference the source's media ids: the fork gets its own copy of the files,
  // removed again when the append is refused (nothing of a fork that does not exist stays behind).
  await copySessionMedia(deps, src.id, state.id);
  try {
    await deps.journal.append([first, ...copies, ...rest]);
  } catch (err) {
    await removeAllSessionMedia(deps, state.id).catch((e) => deps.log.error({ err: e, session_id: state.id }, 'cannot remove the media of a refused fork'));
    throw err;
  }
  return toSessionObject(deps.sessions.get(state.id)!, deps.live);
}

/** Events that describe a session's own lifecycle; a fork starts its own instead of copying them. */
const LIFECYCLE = new Set<EventType>([
  'session.created',
  'session.profile_updated',
  'session.archived',
  'session.restored',
  'session.runtime_bound',
]);

/** Events that archive `s` (none when already archived); batch callers append many in one go. */
export function archiveEvents(deps: { clock: Clock }, s: SessionRecord): NewStreamEvent[] {
  if (s.archived) return [];
  return [
    { stream: s.id, type: 'session.archived', payload: { archived_at: deps.clock.now().toISOString() } },
    { stream: GLOBAL_STREAM, type: 'event.session.archived', payload: { workspace_id: s.workspace_id, sessionId: s.id } },
  ];
}

/** Events that restore `s` (none when not archived). */
export function restoreEvents(s: SessionRecord): NewStreamEvent[] {
  return s.archived ? [{ stream: s.id, type: 'session.restored', payload: {} }] : [];
}

export async function archiveSession(deps: OwnedSessionLookup & { journal: EventJournal; clock: Clock }, id: string): Promise<void> {
  const events = archiveEvents(deps, findOwnedSession(deps, id));
  if (events.length) await deps.journal.append(events);
}

export async function restoreSession(deps: OwnedSessionLookup & { journal: EventJournal }, id: string): Promise<void> {
  const events = restoreEvents(findOwnedSession(deps, id));
  if (events.length) await deps.journal.append(events);
}
