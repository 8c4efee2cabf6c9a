import type { JournalEvent } from '../../journal/types.ts';
import { GLOBAL_STREAM } from '../../journal/keys.ts';
import { known } from '../contract.ts';
import { textOf } from '../../protocol/schemas/messages.ts';

export type DocRole = 'user' | 'assistant' | 'title';

/** What the search index is told about one event; computed where the events are, cheap to send to a worker. */
export type SearchOp =
  | { op: 'session'; session_id: string; workspace_id?: string; title?: string; time: number; archived?: boolean }
  | { op: 'add'; session_id: string; key: string; agent_id: string; role: DocRole; text: string; time: number; turn?: string }
  | { op: 'remove'; session_id: string; keys: string[] }
  | { op: 'drop-session'; session_id: string }
  | { op: 'workspace'; workspace_id: string; deleted: boolean };

/**
 * The search index as a projection: the documents an event adds or removes. Documents are the text of user
 * and assistant messages (every agent; compaction summaries are not the user's words) and session titles.
 */
export function searchOps(event: JournalEvent): SearchOp[] {
  const time = Date.parse(event.ts);
  if (event.stream === GLOBAL_STREAM) {
    const e = known(event);
    if (e.type === 'event.workspace.deleted') return [{ op: 'workspace', workspace_id: e.payload.workspace_id, deleted: true }];
    if (e.type === 'event.workspace.created') return [{ op: 'workspace', workspace_id: e.payload.id, deleted: false }];
    if (e.type === 'event.session.deleted') return [{ op: 'drop-session', session_id: e.payload.session_id }];
    return [];
  }
  const e = known(event);
  const sid = event.stream;
  switch (e.type) {
    case 'session.created': {
      const s = e.payload.session;
      return [{ op: 'session', session_id: sid, workspace_id: s.workspace_id, title: s.title, time, archived: s.archived }];
    }
    case 'session.profile_updated':
      return e.payload.title === undefined ? [] : [{ op: 'session', session_id: sid, title: e.payload.title, time }];
    case 'session.title_generated':
      return [{ op: 'session', session_id: sid, title: e.payload.title, time }];
    case 'session.archived':
      return [{ op: 'session', session_id: sid, time, archived: true }];
    case 'session.restored':
      return [{ op: 'session', session_id: sid, time, archived: false }];
    case 'session.undone':
      return [{ op: 'remove', session_id: sid, keys: e.payload.message_ids }];
    case 'message.created': {
      const m = e.payload.message;
      if (!m?.id || (m.role !== 'user' && m.role !== 'assistant') || m.metadata?.compaction) return [];
      const text = textOf(m.content);
      if (!text) return [];
      const created = Date.parse(m.created_at);
      return [{
        op: 'add', session_id: sid, key: m.id, agent_id: e.payload.agent_id ?? 'main', role: m.role, text,
        time: Number.isFinite(created) ? created : time, ...(e.payload.turn_id ? { turn: e.payload.turn_id } : {}),
      }];
    }
    default:
      return [];
  }
}
