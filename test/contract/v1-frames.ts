import * as v from 'valibot';

/**
 * spec/clients.md F: the v1 event payloads as SDK-style clients read them (plain `subscribe`, no transcript channel),
 * field by field with the reference server's types. Written from the client's side, apart from the daemon's schemas
 * (protocol/), so a daemon change that breaks such a client fails here. Objects are loose (extra keys are the superset).
 */

const Str = v.string();
const Int = v.pipe(v.number(), v.integer());
const Ordinal = v.pipe(v.number(), v.integer(), v.minValue(0));
const Step = v.pipe(v.number(), v.integer(), v.minValue(1));
const Num = v.number();
const Obj = v.looseObject({});
const Display = v.looseObject({ kind: Str });
const opt = <S extends v.GenericSchema>(s: S) => v.optional(s);

/** Every payload of the journey: its frame's type, when (epoch ms), which agent, which session. */
export const V1Common = v.looseObject({ type: Str, time: Int, agentId: Str, sessionId: Str });

const inTurn = { turnId: Ordinal };
const inStep = { turnId: Ordinal, step: Step, stepId: Str };
const Approval = { id: Str, ...inStep, toolCallId: Str, toolName: Str, action: Str, display: Display, toolInput: Obj };

/** The fields per frame type (clients.md F), beside V1Common. */
export const V1Payloads: Record<string, v.GenericSchema> = {
  'turn.started': v.looseObject({ ...inTurn, promptId: Str, origin: v.looseObject({ kind: Str }), prompt: Str }),
  'turn.step.started': v.looseObject(inStep),
  'assistant.delta': v.looseObject({ ...inTurn, delta: Str }),
  'thinking.delta': v.looseObject({ ...inTurn, delta: Str }),
  'tool.call.delta': v.looseObject({ ...inTurn, toolCallId: Str, name: Str, argumentsPart: Str }),
  'tool.call.started': v.looseObject({ ...inStep, toolCallId: Str, name: Str, args: Obj, description: Str, display: Display }),
  'tool.progress': v.looseObject({ ...inTurn, toolCallId: Str, update: v.looseObject({ kind: Str, text: opt(Str) }) }),
  'tool.result': v.looseObject({ ...inStep, toolCallId: Str, output: Str }),
  'turn.step.completed': v.looseObject({
    ...inStep, usage: v.looseObject({ inputOther: Int, output: Int, inputCacheRead: Int, inputCacheCreation: Int }), finishReason: Str,
    llmFirstTokenLatencyMs: opt(Num), llmStreamDurationMs: opt(Num),
  }),
  'turn.step.interrupted': v.looseObject({ ...inStep, reason: Str }),
  'turn.ended': v.looseObject({ ...inTurn, reason: Str, durationMs: Num }),
  'permission.approval.requested': v.looseObject(Approval),
  'permission.approval.resolved': v.looseObject({ ...Approval, decision: Str }),
  'prompt.submitted': v.looseObject({ promptId: Str, userMessageId: Str, status: Str, content: v.array(Obj), createdAt: Str }),
  'prompt.started': v.looseObject({ promptId: Str }),
  'prompt.completed': v.looseObject({ promptId: Str, finishedAt: Str, reason: Str }),
  'prompt.aborted': v.looseObject({ promptId: Str, abortedAt: Str }),
  'session.meta.updated': v.looseObject({ title: Str, patch: v.looseObject({ title: Str, isCustomTitle: v.boolean(), lastPrompt: opt(Str) }) }),
};

/** Frames a v1 client follows (every event frame of a session but the transcript channel's). */
const NOT_EVENTS = new Set(['ack', 'server_hello', 'resync_required', 'transcript.reset', 'transcript.ops', 'terminal_output', 'terminal_exit', 'error', 'ping']);

/** The issues of one session event frame against F; [] when it passes (or is not a session event). */
export function v1Issues(frame: any): string[] {
  if (!frame || NOT_EVENTS.has(frame.type) || typeof frame.session_id !== 'string' || frame.session_id === '__global__') return [];
  const out: string[] = [];
  const check = (what: string, schema: v.GenericSchema) => {
    const r = v.safeParse(schema, frame.payload);
    if (!r.success) out.push(`${frame.type}: ${what}: ${r.issues.map((i) => `${v.getDotPath(i) ?? '(payload)'} ${i.message}`).join('; ')}`);
  };
  check('F common', V1Common);
  if (frame.payload?.type !== undefined && frame.payload.type !== frame.type) out.push(`${frame.type}: payload.type ${frame.payload.type}`);
  const schema = V1Payloads[frame.type];
  if (schema) check('F', schema);
  return out;
}
