import type { SessionRecord } from '../../projections/session-index/session-index.ts';
import type * as v from 'valibot';
import type { SessionObject as SessionObjectSchema } from '../../protocol/schemas/sessions.ts';
import type { LiveSessions } from './live.ts';

type SessionObject = v.InferOutput<typeof SessionObjectSchema>;

export const ZERO_USAGE = {
  input_tokens: 0,
  output_tokens: 0,
  cache_read_tokens: 0,
  cache_creation_tokens: 0,
  context_tokens: 0,
};

/** The wire session object (Core "Session object") of an index record. */
export function toSessionObject(s: SessionRecord, live: LiveSessions): SessionObject {
  const state = live.get(s.id);
  return {
    id: s.id,
    workspace_id: s.workspace_id,
    title: s.title,
    created_at: s.created_at,
    updated_at: s.updated_at,
    archived: s.archived,
    ...(s.archived && s.archived_at ? { archived_at: s.archived_at } : {}),
    busy: state?.busy ?? false,
    main_turn_active: state?.main_turn_active ?? false,
    pending_interaction: state?.pending_interaction ?? 'none',
    ...(s.last_turn_reason ? { last_turn_reason: s.last_turn_reason } : {}),
    ...(s.last_prompt ? { last_prompt: s.last_prompt } : {}),
    metadata: { ...s.metadata, cwd: s.cwd },
    agent_config: { model: '' },
    usage: { ...ZERO_USAGE },
    permission_rules: [],
    message_count: 0,
    last_seq: 0,
  };
}
