import * as v from 'valibot';

// The client's view of the transcript, written from spec/clients.md B, C and A8 (not from the daemon's own
// schemas in protocol/): "req" is required, "opt" may be missing (null is not accepted), extra keys are ignored.

const Id = v.pipe(v.string(), v.minLength(1));
const Str = v.string();
const Int = v.pipe(v.number(), v.integer());
const Num = v.number();
const Iso = v.string();
const Any = v.any();
const opt = <T extends v.GenericSchema>(s: T) => v.optional(s);

const StepUsage = v.object({ inputOther: Num, output: Num, inputCacheRead: Num, inputCacheCreation: Num });

/** B2: the payload of a `user` origin (and of a user-role frame's `origin`). */
const SkillActivation = { skillName: Str, skillArgs: opt(Str) };
const UserPayload = v.variant('kind', [
  v.looseObject({ kind: v.literal('user'), clientMetadata: opt(v.array(v.record(v.string(), v.unknown()))), skillActivations: opt(v.array(v.object(SkillActivation))) }),
  v.looseObject({ kind: v.literal('skill_activation'), trigger: v.literal('user-slash'), ...SkillActivation, clientMetadata: opt(Any) }),
]);
const Origin = v.variant('kind', [
  v.object({ kind: v.literal('user'), payload: opt(UserPayload) }),
  v.object({ kind: v.literal('cron'), taskId: opt(Id), payload: opt(Any) }),
  v.object({ kind: v.literal('task'), taskId: Id, payload: opt(Any) }),
  v.object({ kind: v.literal('hook'), payload: opt(Any) }),
  v.object({ kind: v.literal('compaction'), payload: opt(Any) }),
  v.object({ kind: v.literal('side'), payload: opt(Any) }),
  v.object({ kind: v.literal('other'), payload: opt(Any) }),
]);

const TextCommon = { kind: v.literal('text'), frameId: Id, text: Str, attachmentIds: opt(v.array(Str)), taskId: opt(Id), promptIds: opt(v.array(Str)) };
const AssistantText = v.pipe(
  v.looseObject({ ...TextCommon, role: v.literal('assistant') }),
  v.check((f) => !('origin' in f), 'an assistant frame must not carry origin'),
);
const UserText = v.object({ ...TextCommon, role: v.literal('user'), origin: opt(UserPayload) });
const TextFrame = v.variant('role', [AssistantText as never, UserText]);
const ThinkingFrame = v.object({ kind: v.literal('thinking'), frameId: Id, text: Str });
const Progress = v.object({
  kind: v.picklist(['stdout', 'stderr', 'progress', 'status', 'custom']), text: opt(Str), percent: opt(Num), customKind: opt(Str), customData: opt(Any),
});
const ToolFrame = v.object({
  kind: v.literal('tool'), frameId: Id, toolCallId: Str, name: Str, state: v.picklist(['running', 'done', 'error']),
  view: opt(Str), input: opt(Any), output: opt(Any), display: opt(Any), error: opt(Str), inputText: opt(Str), progress: opt(Progress),
  taskId: opt(Id), approvalId: opt(Str), todoId: opt(Str), agentRefs: opt(v.array(v.object({ agentId: Id, role: opt(v.picklist(['child', 'member'])) }))),
});
const NoticeFrame = v.object({ kind: v.literal('notice'), frameId: Id, level: v.picklist(['error', 'warning', 'info']), message: Str, source: opt(Str), detail: opt(Any) });
export const Frame = v.variant('kind', [TextFrame as never, ThinkingFrame, ToolFrame, NoticeFrame]);

const LlmTiming = v.object(Object.fromEntries([
  'llmFirstTokenLatencyMs', 'llmStreamDurationMs', 'llmRequestBuildMs', 'llmServerFirstTokenMs', 'llmServerDecodeMs', 'llmClientConsumeMs', 'llmClientBlockedMs',
].map((k) => [k, opt(Num)])));
const Retry = v.object({ failedAttempt: Num, nextAttempt: Num, maxAttempts: Num, delayMs: Num, errorName: Str, errorMessage: Str, statusCode: opt(Num) });
const StepFields = {
  kind: v.literal('step'), stepId: Id, turnId: Id, ordinal: Int, state: v.picklist(['running', 'completed', 'interrupted', 'failed']),
  startedAt: opt(Iso), endedAt: opt(Iso), usage: opt(StepUsage), finishReason: opt(Str), llmTiming: opt(LlmTiming), retry: opt(Retry),
  endReason: opt(Str), endMessage: opt(Str),
};
export const Step = v.object({ ...StepFields, frames: v.array(Frame) });
export const StepHeader = v.object(StepFields);

const TurnFields = {
  kind: v.literal('turn'), turnId: Id, triggerPromptId: opt(Id), ordinal: Int, state: v.picklist(['queued', 'running', 'completed', 'failed', 'cancelled']),
  origin: Origin, prompt: opt(Str), attachmentIds: opt(v.array(Str)), startedAt: opt(Iso), endedAt: opt(Iso),
  usage: opt(v.object({ inputTokens: opt(Num), outputTokens: opt(Num), cachedTokens: opt(Num), cost: opt(Num) })), durationMs: opt(Num), error: opt(Str),
};
export const Turn = v.object({ ...TurnFields, steps: v.array(Step) });
export const TurnHeader = v.object(TurnFields);
/** B6: the payloads of the markers the client renders (the others are accepted as they are). */
const MARKER_PAYLOADS: Record<string, v.GenericSchema> = {
  compaction: v.looseObject({
    phase: v.picklist(['started', 'blocked', 'cancelled', 'completed']), trigger: Str,
    result: opt(v.looseObject({ tokensBefore: Num, tokensAfter: Num, summary: Str })),
  }),
  'cron.fired': v.looseObject({ origin: v.looseObject({ kind: v.literal('cron_job'), jobId: Str }), prompt: Str }),
  skill: v.looseObject({ origin: v.looseObject({ kind: v.literal('skill_activation'), skillName: Str, skillArgs: opt(Str) }) }),
  notice: v.looseObject({
    level: v.picklist(['error', 'warning', 'info']), message: Str,
    event: v.looseObject({ code: opt(Str), name: opt(Str), retryable: opt(v.boolean()), details: opt(v.looseObject({ statusCode: opt(Num), requestId: opt(Str) })) }),
  }),
};
export const Marker = v.pipe(
  v.object({ kind: v.literal('marker'), markerId: Str, marker: Str, payload: opt(Any), at: opt(Iso) }),
  v.check((m) => !MARKER_PAYLOADS[m.marker] || v.is(MARKER_PAYLOADS[m.marker]!, m.payload), 'marker payload (B6)'),
);
export const TaskRef = v.object({ kind: v.literal('taskref'), refId: Str, taskId: Id, at: opt(Iso) });
export const Item = v.variant('kind', [Turn, Marker, TaskRef]);

export const Task = v.object({
  taskId: Id, kind: v.picklist(['shell', 'subagent', 'tool', 'other']), state: v.picklist(['running', 'completed', 'failed', 'timed_out', 'killed', 'lost']),
  detached: v.boolean(), outputTail: Str, description: opt(Str), agentId: opt(Id), startedAt: opt(Iso), endedAt: opt(Iso),
  resultSummary: opt(Str), error: opt(Str), stateReason: opt(Str), usage: opt(StepUsage), model: opt(Str), thinkingEffort: opt(Str),
});
// The block the published web UI renders the card from (clients.md F: a plain string left the card without its command).
const ApprovalRequest = v.object({ toolName: Str, action: Str, display: v.looseObject({ kind: Str }) });
const QuestionRequest = v.object({ questions: v.array(Any) });
export const Interaction = v.pipe(
  v.object({
    interactionId: Str, interactionKind: v.picklist(['approval', 'question']),
    state: v.picklist(['pending', 'approved', 'rejected', 'cancelled', 'answered', 'dismissed']), toolCallId: opt(Str), request: opt(Any), response: opt(Any),
  }),
  v.check((i) => (i.interactionKind === 'approval' ? v.is(ApprovalRequest, i.request) : v.is(QuestionRequest, i.request)), 'interaction request shape'),
);
export const Attachment = v.object({
  attachmentId: Str, mediaType: Str, name: opt(Str), size: opt(Num),
  source: opt(v.variant('kind', [
    v.object({ kind: v.literal('url'), url: Str }), v.object({ kind: v.literal('file'), fileId: Str }), v.object({ kind: v.literal('session_media'), fileId: Str }),
  ])),
  placeholder: opt(Str),
});
export const Todo = v.object({ todoId: Str, items: v.array(v.object({ title: Str, status: v.picklist(['pending', 'in_progress', 'done']) })), updatedAt: opt(Iso) });
export const Prompt = v.object({
  promptId: Str, status: v.picklist(['running', 'queued', 'blocked', 'completed', 'failed', 'aborted']), createdAt: Iso, userMessageId: opt(Str),
  content: opt(Any), clientMetadata: opt(v.array(v.record(v.string(), v.unknown()))), finishedAt: opt(Iso), steeredAt: opt(Iso),
});
export const Agent = v.object({
  agentId: Id, type: opt(v.picklist(['main', 'sub', 'independent'])), parentAgentId: opt(Id), label: opt(Str), createdAt: opt(Iso), disposedAt: opt(Iso),
});

const Phase = v.variant('kind', [
  v.object({ kind: v.literal('idle') }),
  v.object({ kind: v.literal('running'), turnId: Num, step: Num, stepId: Str, since: Num }),
  v.object({ kind: v.literal('tool_call'), turnId: Num, step: Num, toolCallId: Str, name: Str, since: Num }),
  v.object({
    kind: v.literal('retrying'), turnId: Num, step: Num, stepId: Str, failedAttempt: Num, nextAttempt: Num, maxAttempts: Num, delayMs: Num, since: Num,
    errorName: opt(Str), statusCode: opt(Num),
  }),
  v.object({ kind: v.literal('awaiting_approval'), turnId: Num, since: Num, step: opt(Num), approval: opt(Any) }),
  v.object({ kind: v.literal('interrupted'), turnId: Num, reason: v.picklist(['aborted', 'max_steps', 'error']), at: Num, step: opt(Num), message: opt(Str) }),
  v.object({ kind: v.literal('ended'), turnId: Num, reason: v.picklist(['completed', 'cancelled', 'failed', 'blocked']), at: Num, durationMs: opt(Num) }),
]);
const Goal = v.object({
  objective: Str, status: v.picklist(['active', 'paused', 'blocked', 'complete']), completionCriterion: opt(Any), budgetUsed: opt(Num), budgetLimit: opt(Num),
});
const AgentMeta = v.object({
  model: opt(Str), thinkingEffort: opt(Str),
  usage: opt(v.object({ byModel: opt(v.record(v.string(), StepUsage)), currentTurn: opt(StepUsage), total: opt(StepUsage) })),
  contextTokens: opt(Num), maxContextTokens: opt(Num), contextUsage: opt(Num), permission: opt(v.picklist(['manual', 'yolo', 'auto'])), phase: opt(Phase),
});
const metaOf = (nullable: boolean) => v.object({
  goal: opt(nullable ? v.nullable(Goal) : Goal),
  modes: opt(v.object({
    plan: opt(nullable ? v.nullable(v.object({ reviewPath: opt(Str), version: opt(Num) })) : v.object({ reviewPath: opt(Str), version: opt(Num) })),
    swarm: opt(nullable ? v.nullable(v.object({ trigger: opt(Any) })) : v.object({ trigger: opt(Any) })),
    tower: opt(nullable ? v.nullable(v.object({})) : v.object({})),
  })),
  activity: opt(v.picklist(['idle', 'turn', 'disposing', 'unknown'])),
  agent: opt(AgentMeta),
});
export const Meta = metaOf(false);

const Target = v.variant('type', [
  v.object({ type: v.literal('frame'), turnId: Str, stepId: Str, frameId: Str }),
  v.object({ type: v.literal('task'), taskId: Str }),
]);
export const Snapshot = v.object({
  items: v.array(Item), tasks: v.array(Task), interactions: opt(v.array(Interaction)), attachments: opt(v.array(Attachment)), todos: opt(v.array(Todo)),
  prompts: opt(v.array(Prompt)), meta: Meta, hasMoreOlder: opt(v.boolean()),
});
export const Op = v.variant('op', [
  v.object({ op: v.literal('turn.upsert'), turn: TurnHeader }),
  v.object({ op: v.literal('step.upsert'), turnId: Str, step: StepHeader }),
  v.object({ op: v.literal('frame.upsert'), turnId: Str, stepId: Str, frame: Frame }),
  v.object({ op: v.literal('append'), target: Target, offset: v.pipe(Int, v.minValue(0)), text: Str }),
  v.object({ op: v.literal('marker.upsert'), item: Marker, beforeTurn: opt(Int) }),
  v.object({ op: v.literal('taskref.upsert'), item: TaskRef, beforeTurn: opt(Int) }),
  v.object({ op: v.literal('task.upsert'), task: Task }),
  v.object({ op: v.literal('interaction.upsert'), interaction: Interaction }),
  v.object({ op: v.literal('attachment.upsert'), attachment: Attachment }),
  v.object({ op: v.literal('todo.upsert'), todo: Todo }),
  v.object({ op: v.literal('prompt.upsert'), prompt: Prompt }),
  v.object({ op: v.literal('meta.merge'), meta: metaOf(true) }),
  v.object({ op: v.literal('items.remove'), ids: v.array(Str) }),
  v.object({ op: v.literal('reset'), agentId: Str, snapshot: Snapshot }),
]);

/** GET /transcript (B7), parsed strictly by the client. */
export const TranscriptResponse = v.object({
  agent_id: Id, items: v.array(Item), has_more: v.boolean(), tasks: v.array(Task), interactions: opt(v.array(Interaction)),
  attachments: opt(v.array(Attachment)), todos: opt(v.array(Todo)), prompts: opt(v.array(Prompt)), meta: Meta, agents: v.array(Agent),
  pending_interactions: v.array(Str), seq: opt(v.pipe(Int, v.minValue(0))),
});

/** A8: the frames of the transcript channel (`{type, ...payload}` plus a string envelope session_id). */
export const ResetFrame = v.object({
  type: v.literal('transcript.reset'), session_id: Str,
  payload: v.object({ agent_id: Id, snapshot: Snapshot, has_more_older: v.boolean(), seq: opt(v.pipe(Int, v.minValue(0))) }),
});
export const OpsFrame = v.object({
  type: v.literal('transcript.ops'), session_id: Str,
  payload: v.object({ agent_id: Id, ops: v.array(Op), seq: opt(v.pipe(Int, v.minValue(0))) }),
});

/** GET …/transcript/ops (B7; the client never calls it, but its schema exists). */
export const OpsResponse = v.object({
  agent_id: Str, batches: v.array(v.object({ seq: v.pipe(Int, v.minValue(0)), ops: v.array(Op) })), latest_seq: Int, complete: v.boolean(),
});

/** Throws with the issues' paths when `value` does not satisfy the contract schema. */
export function assertContract(schema: v.GenericSchema, value: unknown, what: string): void {
  const r = v.safeParse(schema, value);
  if (r.success) return;
  const issues = r.issues.slice(0, 5).map((i) => `${v.getDotPath(i) ?? '(root)'}: ${i.message}`);
  throw new Error(`${what} breaks the client contract: ${issues.join('; ')}`);
}
