import * as v from 'valibot';
import { v1Issues } from './v1-frames.ts';

/**
 * The client contract for WebSocket frames, written from spec/clients.md (sections A1-A6, E3-E17): what an
 * existing web client reads, as it validates it. Kept apart from the daemon's own schemas (protocol/): these
 * are the client's view, so a daemon change that breaks a client fails here even when the daemon's
 * schemas moved with it. Objects are loose (clients ignore unknown keys: a superset is always safe);
 * "opt" fields are optional but never null unless the contract says so.
 *
 * Transcript frames (`transcript.reset` / `transcript.ops`): only the envelope here (A1 row 1, A8); their
 * inner payloads are in test/contract/transcript-*.ts.
 */

const Id = v.pipe(v.string(), v.minLength(1));
const Str = v.string();
const Num = v.number();
const Bool = v.boolean();
const opt = <S extends v.GenericSchema>(s: S) => v.optional(s);

// ---- A2: connection and control frames --------------------------------------------------------------

export const ServerHello = v.looseObject({
  type: v.literal('server_hello'),
  payload: opt(v.looseObject({ heartbeat_ms: opt(v.pipe(Num, v.minValue(1))) })),
});

/** Any ack: `id` and `code` are what every handler reads. */
export const Ack = v.looseObject({ type: v.literal('ack'), id: opt(v.nullable(v.union([Str, Num]))), code: Num, payload: opt(v.unknown()) });

/** The ack of `client_hello` (E12). */
export const ClientHelloAck = v.looseObject({
  type: v.literal('ack'), code: v.literal(0),
  payload: v.looseObject({ accepted_subscriptions: v.array(Str), resync_required: v.array(Str) }),
});

/** The ack of `subscribe` / `subscribe_v2` with code 0 (E13). */
export const SubscribeAck = v.looseObject({
  type: v.literal('ack'), code: v.literal(0),
  payload: v.looseObject({ accepted: v.array(Str), not_found: v.array(Str) }),
});

export const Ping = v.looseObject({ type: v.literal('ping'), payload: v.looseObject({ nonce: Str }) });

export const ResyncRequired = v.looseObject({
  type: v.literal('resync_required'),
  payload: v.looseObject({ session_id: Str, current_seq: Num, epoch: Str }),
});

export const ErrorFrame = v.looseObject({ type: v.literal('error'), payload: opt(v.looseObject({})) });

export const TerminalOutput = v.looseObject({
  type: v.literal('terminal_output'), session_id: Str, terminal_id: Str, seq: Num, payload: v.looseObject({ data: Str }),
});

export const TerminalExit = v.looseObject({
  type: v.literal('terminal_exit'), session_id: Str, terminal_id: Str, payload: v.looseObject({ exit_code: v.nullable(Num) }),
});

/** A1 row 1: the client requires a string envelope `session_id` and an object payload. */
export const TranscriptEnvelope = v.looseObject({
  type: v.picklist(['transcript.reset', 'transcript.ops']), session_id: Str, payload: v.looseObject({ agent_id: Id }),
});

// ---- A1 row 3: every other frame goes through cursor tracking and a router ---------------------------

/** A non-volatile frame: a string `session_id` and a number `seq` (and the `epoch` taken into the cursor). */
export const TrackedEnvelope = v.looseObject({ type: Str, session_id: Str, seq: Num, epoch: opt(Str), payload: v.looseObject({}) });
/** A volatile frame skips cursor tracking; the agent projector still needs a string `session_id`. */
export const VolatileEnvelope = v.looseObject({ type: Str, volatile: v.literal(true), session_id: Str, payload: v.looseObject({}) });

// ---- A5: event.* frames through the protocol mapper --------------------------------------------------

const Usage8 = v.looseObject({});
/** The REST session object as `event.session.created` carries it (A5, D2). */
export const ClientSession = v.looseObject({
  id: Id, title: Str, created_at: Str, updated_at: Str, busy: Bool, main_turn_active: Bool,
  pending_interaction: v.picklist(['none', 'approval', 'question']),
  last_turn_reason: opt(Str), archived: Bool, archived_at: opt(Str), current_prompt_id: opt(Str), last_prompt: opt(Str),
  metadata: v.looseObject({ cwd: opt(Str), parent_session_id: opt(Str) }),
  agent_config: v.looseObject({ model: opt(Str) }),
  usage: Usage8,
  message_count: opt(Num), last_seq: opt(Num), workspace_id: opt(Str),
});

const ClientWorkspace = v.looseObject({ id: Id, root: Str, name: Str, last_opened_at: v.nullable(Str), session_count: Num });
const PendingInteraction = v.picklist(['none', 'approval', 'question']);
const SessionStatus = v.picklist(['idle', 'running', 'awaiting_approval', 'awaiting_question', 'aborted']);
const AgentRef = { agentId: opt(Str), agent_id: opt(Str) };

const TaskWire = v.looseObject({
  id: Id, run_in_background: Bool, status: Str, subagent_phase: opt(Str), suspended_reason: opt(Str), swarm_index: opt(Num),
});

const QuestionOption = v.looseObject({ id: opt(Str), label: Str, description: opt(Str), recommended: opt(Bool), is_recommended: opt(Bool) });

/** The payload the client reads per event type (A5 and A6); types not listed are not read beyond the envelope. */
export const EventPayloads: Record<string, v.GenericSchema> = {
  'event.session.created': v.looseObject({ session: ClientSession }),
  'event.session.updated': v.looseObject({ session: ClientSession, changed_fields: opt(v.array(Str)) }),
  'event.session.deleted': v.looseObject({ sessionId: Str }),
  'event.session.archived': v.union([v.looseObject({ sessionId: Str, workspace_id: opt(Str) }), v.looseObject({ session_id: Str, workspace_id: opt(Str) })]),
  'event.workspace.created': v.looseObject({ workspace: ClientWorkspace }),
  'event.workspace.updated': v.looseObject({ workspace: ClientWorkspace }),
  'event.workspace.deleted': v.looseObject({ workspace_id: Str, root: Str }),
  'event.session.work_changed': v.looseObject({
    busy: Bool, main_turn_active: opt(Bool), pending_interaction: opt(PendingInteraction), last_turn_reason: opt(Str),
  }),
  // A missing status reads as busy (A5): the daemon must send it.
  'event.session.status_changed': v.looseObject({ status: SessionStatus, previous_status: opt(SessionStatus) }),
  'event.session.usage_updated': v.looseObject({ usage: v.looseObject({}) }),
  'event.approval.requested': v.looseObject({
    approval_id: Id, session_id: Str, ...AgentRef, turn_id: opt(Str), tool_call_id: Str, tool_name: Str, action: opt(Str), created_at: opt(Str),
  }),
  'event.approval.resolved': v.looseObject({ approval_id: Id, decision: Str }),
  'event.approval.expired': v.looseObject({ approval_id: Id }),
  'event.question.requested': v.looseObject({
    question_id: Id, session_id: Str, ...AgentRef, tool_call_id: opt(Str),
    questions: v.array(v.looseObject({
      id: opt(Str), question: Str, header: opt(Str), body: opt(Str), options: v.array(QuestionOption),
      multi_select: opt(Bool), allow_other: opt(Bool),
    })),
  }),
  'event.question.answered': v.looseObject({ question_id: Id }),
  'event.question.dismissed': v.looseObject({ question_id: Id }),
  'event.task.created': v.looseObject({ task: TaskWire }),
  'event.config.changed': v.looseObject({ config: v.looseObject({ providers: v.looseObject({}) }) }),
  'event.model_catalog.changed': v.looseObject({
    changed: v.array(v.looseObject({ provider_id: Str, provider_name: Str, added: v.array(Str), removed: v.array(Str) })),
    unchanged: v.array(v.unknown()), failed: v.array(v.unknown()),
  }),
  // A6: agent events (camelCase keys; `agentId` other than main routes to a sub-agent).
  'session.meta.updated': v.looseObject({
    session_id: Str, title: Str, patch: v.looseObject({ title: Str, isCustomTitle: Bool, lastPrompt: opt(Str) }),
  }),
  'goal.updated': v.looseObject({ snapshot: v.nullable(v.looseObject({})) }),
  'compaction.started': v.looseObject({ trigger: Str, agentId: Str }),
  'compaction.completed': v.looseObject({ result: v.looseObject({ tokensBefore: Num, tokensAfter: Num }), agentId: Str }),
  // F: `turnId` is the agent's turn ordinal, an integer (the rest of F in v1-frames.ts).
  'turn.started': v.looseObject({ turnId: Num, agentId: Str, sessionId: Str }),
  'turn.ended': v.looseObject({ turnId: Num, agentId: Str, reason: Str }),
  'turn.step.completed': v.looseObject({ usage: v.looseObject({}), agentId: Str }),
  'prompt.accepted': v.looseObject({ promptId: Str, sessionId: Str }),
  'prompt.aborted': v.looseObject({ promptId: Str }),
  'subagent.spawned': v.looseObject({ subagentId: Str, agentId: Str, description: Str, model: Str }),
  'subagent.started': v.looseObject({ subagentId: Str }),
  'subagent.completed': v.looseObject({ subagentId: Str }),
  'subagent.failed': v.looseObject({ subagentId: Str }),
  'task.started': v.looseObject({ info: v.looseObject({ taskId: Str, kind: Str, startedAt: Num, agentId: opt(Str) }), task: TaskWire }),
  'task.terminated': v.looseObject({ info: v.looseObject({ taskId: Str, status: Str, kind: Str }), task: TaskWire }),
  'assistant.delta': v.looseObject({ agentId: Str }),
  'thinking.delta': v.looseObject({ agentId: Str }),
  'tool.call.started': v.looseObject({ agentId: Str, toolCallId: Str }),
  'tool.result': v.looseObject({ agentId: Str, toolCallId: Str }),
};

/** Broadcast events the client gates by the session's own seq (A5 "Gated", E5): the envelope names the session. */
export const SESSION_STAMPED = new Set(['session.meta.updated', 'event.session.work_changed', 'event.session.status_changed']);

/** The issues of one server frame against the contract; [] when it passes. */
export function frameIssues(frame: any): string[] {
  const fail = (what: string, r: { success: boolean; issues?: readonly v.BaseIssue<unknown>[] }) =>
    r.success ? [] : [`${frame?.type}: ${what}: ${r.issues!.map((i) => `${(i.path ?? []).map((p) => p.key).join('.')} ${i.message}`).join('; ')}`];
  if (!frame || typeof frame.type !== 'string') return ['frame without a string type'];
  switch (frame.type) {
    case 'transcript.reset':
    case 'transcript.ops':
      return fail('transcript envelope', v.safeParse(TranscriptEnvelope, frame));
    case 'server_hello': return fail('server_hello', v.safeParse(ServerHello, frame));
    case 'ack': return fail('ack', v.safeParse(Ack, frame));
    case 'ping': return fail('ping', v.safeParse(Ping, frame));
    case 'resync_required': return fail('resync_required', v.safeParse(ResyncRequired, frame));
    case 'error': return fail('error', v.safeParse(ErrorFrame, frame));
    case 'terminal_output': return fail('terminal_output', v.safeParse(TerminalOutput, frame));
    case 'terminal_exit': return fail('terminal_exit', v.safeParse(TerminalExit, frame));
  }
  const envelope = frame.volatile === true ? VolatileEnvelope : TrackedEnvelope;
  const out = fail('envelope', v.safeParse(envelope, frame));
  const payload = EventPayloads[frame.type];
  if (payload) out.push(...fail('payload', v.safeParse(payload, frame.payload)));
  if (SESSION_STAMPED.has(frame.type) && frame.session_id === '__global__') out.push(`${frame.type}: stamped __global__, not the session`);
  // E10: a payload naming an agent in snake case names it in camelCase too.
  if (frame.payload && typeof frame.payload.agent_id === 'string' && frame.payload.agentId !== frame.payload.agent_id) out.push(`${frame.type}: agent_id without agentId`);
  // F: the v1 payload fields SDK-style clients read, on every session event frame.
  out.push(...v1Issues(frame));
  return out;
}
