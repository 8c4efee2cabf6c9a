import type { AppContext } from '../../app/context.ts';
import { findSession } from '../../sessions/lookup.ts';
import { transcriptCache } from '../../transcript/cache.ts';
import { isLive, readOps } from '../../transcript/read.ts';
import type { TranscriptState } from '../../transcript/state.ts';
import { agentOf, interactions, meta, plans, roster, turnPage, userMessages, type TurnCursor } from '../../transcript/views.ts';
import { Codes } from '../../protocol/codes.ts';
import { notFound, validationError } from '../../protocol/errors.ts';
import { route, type RouteDef } from '../route.ts';
import { SessionIdParams } from '../../protocol/schemas/sessions.ts';
import {
  OpsData, OpsQuery, PlanData, PlanQuery, TranscriptData, TranscriptQuery, UserMessagesData, UserMessagesQuery,
} from '../../protocol/schemas/transcript.ts';

const BASE = '/api/v1/sessions/{session_id}/transcript';

/** GET /transcript: a page of the agent's turns plus its unpaginated state, folded from the journal. */
async function transcript(app: AppContext, sessionId: string, q: TurnCursor & { agent_id: string }) {
  findSession(app, sessionId);
  if (q.before_turn !== undefined && q.after_turn !== undefined) {
    const message = 'before_turn and after_turn are mutually exclusive';
    throw validationError([{ field: 'before_turn', message }, { field: 'after_turn', message }]);
  }
  const live = isLive(app, sessionId);
  return transcriptCache(app.journal).read(sessionId, (state, seq) => transcriptView(state, q, live ? seq : undefined));
}

function transcriptView(state: TranscriptState, q: TurnCursor & { agent_id: string }, seq: number | undefined) {
  const a = agentOf(state, q.agent_id);
  const page = turnPage(a, q);
  if (!page) throw validationError([{ field: q.before_turn ? 'before_turn' : 'after_turn', message: 'unknown turn id for this agent' }]);
  const all = interactions(a);
  return {
    agent_id: q.agent_id, ...page, tasks: [...state.tasks.values()], interactions: all, attachments: [...a.attachments.values()],
    todos: a.todos, meta: meta(a), agents: roster(state), pending_interactions: all.filter((x) => x.state === 'pending'),
    ...(seq !== undefined ? { seq } : {}),
  };
}

/** Core "Messages and transcript": the transcript read side (docs/transcript.md). */
export function transcriptRoutes(app: AppContext): RouteDef[] {
  const codes = [Codes.VALIDATION, Codes.SESSION_NOT_FOUND];
  return [
    route({
      method: 'GET', path: BASE, operationId: 'getSessionTranscript', tags: ['messages'],
      summary: 'A page of an agent\'s turns (newest page without a cursor, items oldest first) and its global state',
      params: SessionIdParams, query: TranscriptQuery, data: TranscriptData, codes,
      handler: ({ params, query }) => transcript(app, params.session_id, query),
    }),
    route({
      method: 'GET', path: `${BASE}/ops`, operationId: 'getSessionTranscriptOps', tags: ['messages'],
      summary: 'The agent\'s journaled events after since_seq as op batches (bounded to the last 1000 events; live sessions only)',
      params: SessionIdParams, query: OpsQuery, data: OpsData, codes,
      handler: ({ params, query }) => {
        findSession(app, params.session_id);
        return readOps(app, params.session_id, query.agent_id, query.since_seq);
      },
    }),
    route({
      method: 'GET', path: `${BASE}/user-messages`, operationId: 'getSessionTranscriptUserMessages', tags: ['messages'],
      summary: 'User messages of one agent or of every rostered agent, with their states and origins',
      params: SessionIdParams, query: UserMessagesQuery, data: UserMessagesData, codes,
      handler: async ({ params, query }) => {
        findSession(app, params.session_id);
        return transcriptCache(app.journal).read(params.session_id, (state) => {
          const ids = query.agent_id ? [query.agent_id] : [...state.roster.keys()];
          return { agents: ids.map((id) => userMessages(state, id)) };
        });
      },
    }),
    route({
      method: 'GET', path: `${BASE}/plan`, operationId: 'getSessionTranscriptPlan', tags: ['messages'],
      summary: 'Plans of the agent\'s ExitPlanMode calls with their reviews',
      params: SessionIdParams, query: PlanQuery, data: PlanData, codes: [...codes, Codes.EXIT_PLAN_CALL_NOT_FOUND],
      handler: async ({ params, query }) => {
        findSession(app, params.session_id);
        const all = await transcriptCache(app.journal).read(params.session_id, (state) => plans(agentOf(state, query.agent_id)));
        if (query.tool_call_id === undefined) return { agent_id: query.agent_id, plans: all };
        const one = all.filter((p) => p.tool_call_id === query.tool_call_id);
        if (!one.length) throw notFound(Codes.EXIT_PLAN_CALL_NOT_FOUND, 'ExitPlanMode call', query.tool_call_id);
        return { agent_id: query.agent_id, plans: one };
      },
    }),
  ];
}
