import type { SessionRecord } from '../../projections/session-index/session-index.ts';
import type { LiveSessions } from './live.ts';

export const ZERO_USAGE = {
  input_tokens: 0,
  output_tokens: 0,
  cache_read_tokens: 0,
  cache_creation_tokens: 0,
  context_tokens: 0,
};

/** The wire session object (Core "Session object") of an index record. */
export function toSessionObject(s: SessionRecord, live: LiveSessions) {
  const state = live.get(s.id);
  const out: Record<string, unknown> = {
    id: s.id,
    workspace_id: s.workspace_id,
    title: s.title,
    created_at: s.created_at,
    updated_at: s.updated_at,
    archived: s.archived,
  };
  if (s.archived && s.archived_at) out.archived_at = s.archived_at;
  out.busy = state?.busy ?? false;
  out.main_turn_active = state?.main_turn_active ?? false;
  out.pending_interaction = state?.pending_interaction ?? 'none';
  if (s.last_turn_reason) out.last_turn_reason = s.last_turn_reason;
  if (s.last_prompt) out.last_prompt = s.last_prompt;
  out.metadata = { ...s.metadata, cwd: s.cwd };
  out.agent_config = { model: '' };
  out.usage = { ...ZERO_USAGE };
  out.permission_rules = [];
  out.message_count = 0;
  out.last_seq = 0;
  return out;
}
