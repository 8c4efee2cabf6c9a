import type { TranscriptProjection } from '../../../projections/transcript/projection.ts';
import { agentOf, plans, userMessages } from '../../../projections/transcript/views.ts';
import { recordsPage } from '../../../projections/transcript/records-view.ts';
import { pageReachesTrimmed } from '../../../projections/transcript/records-trim.ts';
import type { LiveTranscripts } from '../../../projections/transcript/live/live-transcripts.ts';
import { findSession, type SessionLookup } from '../../sessions/lookup.ts';
import { Codes } from '../../../protocol/codes.ts';
import { notFound, validationError } from '../../../protocol/errors.ts';
import { route, type RouteDef } from '../route.ts';
import { SessionIdParams } from '../../../protocol/schemas/sessions.ts';
import {
  OpsData, OpsQuery, PlanData, PlanQuery, TranscriptData, TranscriptQuery, UserMessagesData, UserMessagesQuery,
} from '../../../protocol/schemas/transcript.ts';

/** What the transcript routes read. */
export interface TranscriptRouteDeps extends SessionLookup {
  /** user-messages and plan: the folded transcripts. */
  transcripts: TranscriptProjection;
  /** GET /transcript and /ops: the live folds with their batch counters and op journals. */
  liveTranscripts: LiveTranscripts;
}

const MUTUALLY_EXCLUSIVE = 'before_turn and after_turn are mutually exclusive';

/** Core "Messages and transcript": the transcript read side (docs/transcript.md). */
export function transcriptRoutes(deps: TranscriptRouteDeps): RouteDef[] {
  const { transcripts } = deps;
  const codes = [Codes.VALIDATION, Codes.SESSION_NOT_FOUND];
  return [
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/transcript', operationId: 'getSessionTranscript', tags: ['messages'],
      summary: 'A page of an agent\'s turns (newest page without a cursor, items oldest first) and its global state',
      params: SessionIdParams, query: TranscriptQuery, data: TranscriptData, codes,
      handler: ({ params, query }) => {
        findSession(deps, params.session_id);
        if (query.before_turn !== undefined && query.after_turn !== undefined) {
          throw validationError([{ field: 'before_turn', message: MUTUALLY_EXCLUSIVE }, { field: 'after_turn', message: MUTUALLY_EXCLUSIVE }]);
        }
        const unknownTurn = () => validationError([{ field: query.before_turn ? 'before_turn' : 'after_turn', message: 'unknown turn id for this agent' }]);
        // Always the live fold (a fold, never the runtime): its `seq` is what transcript_since resumes from.
        // A page that reaches turns the live fold left out gets them back from the journal first (records-trim.ts).
        return deps.liveTranscripts.read(params.session_id, (state, watermark) => {
          const page = recordsPage(state, query, watermark(query.agent_id));
          if (!page) throw unknownTurn();
          return page;
        }, (state) => pageReachesTrimmed(state.rec.agents.get(query.agent_id), query));
      },
    }),
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/transcript/ops', operationId: 'getSessionTranscriptOps', tags: ['messages'],
      summary: 'The agent\'s op batches after since_seq (the op journal keeps the last 2000; live sessions only)',
      params: SessionIdParams, query: OpsQuery, data: OpsData, codes,
      handler: async ({ params, query }) => {
        findSession(deps, params.session_id);
        const base = { agent_id: query.agent_id };
        if (!deps.liveTranscripts.has(params.session_id)) return { ...base, batches: [], latest_seq: 0, complete: false };
        // The view keeps only the serialised frames (strings: nothing to clone); they are parsed once, after the read.
        const r = await deps.liveTranscripts.read(params.session_id, (_state, _wm, e) => deps.liveTranscripts.since(e, query.agent_id, query.since_seq));
        return { ...base, batches: r.batches.map((b) => ({ seq: b.seq, ops: (JSON.parse(b.text) as { payload: { ops: unknown[] } }).payload.ops })), latest_seq: r.latest, complete: r.complete };
      },
    }),
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/transcript/user-messages', operationId: 'getSessionTranscriptUserMessages', tags: ['messages'],
      summary: 'User messages of one agent or of every rostered agent, with their states and origins',
      params: SessionIdParams, query: UserMessagesQuery, data: UserMessagesData, codes,
      handler: ({ params, query }) => {
        findSession(deps, params.session_id);
        return transcripts.read(params.session_id, (state) => {
          const ids = query.agent_id ? [query.agent_id] : [...state.roster.keys()];
          return { agents: ids.map((id) => userMessages(state, id)) };
        });
      },
    }),
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/transcript/plan', operationId: 'getSessionTranscriptPlan', tags: ['messages'],
      summary: 'Plans of the agent\'s ExitPlanMode calls with their reviews',
      params: SessionIdParams, query: PlanQuery, data: PlanData, codes: [...codes, Codes.EXIT_PLAN_CALL_NOT_FOUND],
      handler: async ({ params, query }) => {
        findSession(deps, params.session_id);
        const all = await transcripts.read(params.session_id, (state) => plans(agentOf(state, query.agent_id)));
        if (query.tool_call_id === undefined) return { agent_id: query.agent_id, plans: all };
        const one = all.filter((p) => p.tool_call_id === query.tool_call_id);
        if (!one.length) throw notFound(Codes.EXIT_PLAN_CALL_NOT_FOUND, 'ExitPlanMode call', query.tool_call_id);
        return { agent_id: query.agent_id, plans: one };
      },
    }),
  ];
}
