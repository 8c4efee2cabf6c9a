import * as v from 'valibot';

// Transcript records and ops (spec/clients.md B and C; docs/transcript.md "Records"): camelCase, as the web
// clients of this API parse them. The spec names only the containers (core "Messages and transcript").

const Iso = v.pipe(v.string(), v.description('ISO 8601'));
const Any = v.unknown();

export const StepUsageRecord = v.object({ inputOther: v.number(), output: v.number(), inputCacheRead: v.number(), inputCacheCreation: v.number() });

export const TurnOrigin = v.pipe(
  v.object({ kind: v.picklist(['user', 'cron', 'task', 'hook', 'compaction', 'side', 'other']), taskId: v.optional(v.string()), payload: v.optional(Any) }),
  v.description('what started the turn: `user` (a prompt; payload {kind:"user", clientMetadata? [the prompt metadata], skillActivations? '
    + '[{skillName, skillArgs?}]}, or {kind:"skill_activation", trigger:"user-slash", skillName, skillArgs?} for skills/{name}:activate, '
    + 'or {kind:"plugin_command", trigger:"user-slash", pluginId, commandName, commandArgs?} for a plugin command), '
    + '`side` (a :btw agent\'s prompt, same payload), `other` (payload {kind:"subagent_prompt"} or {kind:"goal_continuation"}), '
    + '`task` (a follow-up turn of background tasks that ended while the agent was idle: taskId the first, payload '
    + '{kind:"task_notification", taskIds}); `cron`, `hook` and `compaction` never start a turn here'),
);

const FrameBase = { frameId: v.pipe(v.string(), v.description('`<stepId>.f<k>`; tool frames `<stepId>.<toolCallId>`, with `~` before a call id of the form `f<k>` or starting with `~` (unique within the step)')) };

export const TextFrame = v.object({
  kind: v.literal('text'), ...FrameBase, role: v.picklist(['assistant', 'user']), text: v.string(),
  attachmentIds: v.optional(v.array(v.string())), taskId: v.optional(v.string()), promptIds: v.optional(v.array(v.string())),
  origin: v.optional(v.pipe(Any, v.description('user frames of a steered prompt: the user origin payload {kind:"user", clientMetadata?}'))),
});
export const ThinkingFrame = v.object({ kind: v.literal('thinking'), ...FrameBase, text: v.string() });
/** A running tool's progress (B3; projections/transcript/records-live.ts). */
export const ToolProgressRecord = v.pipe(v.object({
  kind: v.picklist(['stdout', 'stderr', 'progress', 'status', 'custom']), text: v.optional(v.string()), percent: v.optional(v.number()),
  customKind: v.optional(v.string()), customData: v.optional(Any),
}), v.description('while the call runs (volatile tool.progress; gone with its tool.result): Bash `stdout` {text: the output so far, its last 2000 characters}, '
  + 'an MCP tool `progress` {percent?, text?}, a plugin tool `custom` {customKind: the tool name, customData}'));
export const ToolFrame = v.object({
  kind: v.literal('tool'), ...FrameBase, toolCallId: v.string(), name: v.string(), state: v.picklist(['running', 'done', 'error']),
  view: v.optional(v.pipe(v.string(), v.description('the call in one line (at most 160 characters): Bash description or command, the path, pattern, URL, query, ...'))),
  input: v.optional(v.pipe(Any, v.description('the parsed arguments'))), output: v.optional(v.pipe(Any, v.description('the result content the model got'))),
  display: v.optional(Any), error: v.optional(v.string()), inputText: v.optional(v.pipe(v.string(), v.description('the arguments as streamed (JSON text)'))),
  progress: v.optional(ToolProgressRecord), taskId: v.optional(v.string()), approvalId: v.optional(v.string()), todoId: v.optional(v.string()),
  agentRefs: v.optional(v.array(v.object({ agentId: v.string(), role: v.optional(v.picklist(['child', 'member'])) }))),
});
export const NoticeFrame = v.object({
  kind: v.literal('notice'), ...FrameBase, level: v.picklist(['error', 'warning', 'info']), message: v.string(), source: v.optional(v.string()), detail: v.optional(Any),
});
export const FrameRecord = v.variant('kind', [TextFrame, ThinkingFrame, ToolFrame, NoticeFrame]);

const StepFields = {
  kind: v.literal('step'),
  stepId: v.pipe(v.string(), v.description('`<turnId>.<n>`, n the 1-based step number')),
  turnId: v.string(), ordinal: v.number(), state: v.picklist(['running', 'completed', 'interrupted', 'failed']),
  startedAt: v.optional(Iso), endedAt: v.optional(Iso), usage: v.optional(StepUsageRecord), finishReason: v.optional(v.string()),
  llmTiming: v.optional(v.pipe(v.object({
    llmFirstTokenLatencyMs: v.optional(v.number()), llmStreamDurationMs: v.optional(v.number()), llmRequestBuildMs: v.optional(v.number()),
    llmClientConsumeMs: v.optional(v.number()), llmServerFirstTokenMs: v.optional(v.number()), llmServerDecodeMs: v.optional(v.number()),
    llmClientBlockedMs: v.optional(v.number()),
  }), v.description('ms, measured by the engine for the step\'s last attempt: request build, request to first streamed part, first part to the end, '
    + 'time spent folding the parts (the server-side and blocked figures are not known here and left out)'))),
  retry: v.optional(v.object({
    failedAttempt: v.number(), nextAttempt: v.number(), maxAttempts: v.number(), delayMs: v.number(), errorName: v.string(), errorMessage: v.string(),
    statusCode: v.optional(v.number()),
  })),
  endReason: v.optional(v.string()), endMessage: v.optional(v.string()),
};
export const StepHeader = v.object(StepFields);
export const StepRecordB = v.object({ ...StepFields, frames: v.array(FrameRecord) });

const TurnFields = {
  kind: v.literal('turn'),
  turnId: v.pipe(v.string(), v.description('`t<ordinal>`')),
  ordinal: v.pipe(v.number(), v.description('0-based turn number of the agent')),
  state: v.picklist(['queued', 'running', 'completed', 'failed', 'cancelled']),
  origin: TurnOrigin,
  triggerPromptId: v.optional(v.string()), prompt: v.optional(v.string()), attachmentIds: v.optional(v.array(v.string())),
  startedAt: v.optional(Iso), endedAt: v.optional(Iso),
  usage: v.optional(v.object({ inputTokens: v.optional(v.number()), outputTokens: v.optional(v.number()), cachedTokens: v.optional(v.number()) })),
  durationMs: v.optional(v.number()), error: v.optional(v.string()),
  turn_id: v.optional(v.pipe(v.string(), v.description('the engine\'s turn id (events\' turn_id)'))), model: v.optional(v.string()),
};
export const TurnHeader = v.object(TurnFields);
export const TurnItem = v.object({ ...TurnFields, steps: v.array(StepRecordB) });
export const MarkerItem = v.object({
  kind: v.literal('marker'), markerId: v.string(),
  marker: v.pipe(v.string(), v.description(
    'compaction {phase, trigger, compactionId, result?} / undo / notice {level, message, event} / interruption / goal / hook / '
    + 'skill {origin {kind:"skill_activation", trigger user-slash|model, skillName, skillArgs?, source}, promptId?, toolCallId?} / '
    + 'plan.revision {version, approvalId, toolCallId}',
  )), payload: v.optional(Any), at: v.optional(Iso),
});
export const TaskRefItem = v.object({ kind: v.literal('taskref'), refId: v.pipe(v.string(), v.description('`ref-<taskId>`')), taskId: v.string(), at: v.optional(Iso) });
export const TranscriptItem = v.variant('kind', [TurnItem, MarkerItem, TaskRefItem]);

export const TaskRecordB = v.looseObject({
  taskId: v.string(), kind: v.picklist(['shell', 'subagent', 'tool', 'other']),
  state: v.picklist(['running', 'completed', 'failed', 'timed_out', 'killed', 'lost']), detached: v.boolean(), outputTail: v.string(),
  description: v.optional(v.string()), agentId: v.optional(v.string()), startedAt: v.optional(Iso), endedAt: v.optional(Iso),
  model: v.optional(v.string()), thinkingEffort: v.optional(v.string()),
  resultSummary: v.optional(v.pipe(v.string(), v.description('a subagent\'s result, cut to 2000 characters'))),
  error: v.optional(v.string()), stateReason: v.optional(v.pipe(v.string(), v.description('why a subagent ended without a result'))),
  usage: v.optional(StepUsageRecord),
});
export const InteractionRecordB = v.object({
  interactionId: v.pipe(v.string(), v.description('the approval_id or question_id')), interactionKind: v.picklist(['approval', 'question']),
  state: v.picklist(['pending', 'approved', 'rejected', 'cancelled', 'answered', 'dismissed']), toolCallId: v.optional(v.string()),
  request: v.optional(v.pipe(Any, v.description('the requested event\'s payload plus toolName / action / display / toolCallId / turnId (the turn ordinal)'))),
  response: v.optional(v.pipe(Any, v.description('the resolving event\'s payload (approvals: with decision)'))),
});
export const AttachmentRecordB = v.looseObject({
  attachmentId: v.string(), mediaType: v.string(), name: v.optional(v.string()), size: v.optional(v.number()),
  source: v.optional(v.object({ kind: v.picklist(['url', 'file', 'session_media']), url: v.optional(v.string()), fileId: v.optional(v.string()) })),
});
export const TodoRecordB = v.object({
  todoId: v.string(), items: v.array(v.looseObject({ title: v.string(), status: v.picklist(['pending', 'in_progress', 'done']) })), updatedAt: v.optional(Iso),
});
export const PromptRecordB = v.object({
  promptId: v.string(), status: v.picklist(['running', 'queued', 'blocked', 'completed', 'failed', 'aborted']), createdAt: Iso,
  userMessageId: v.optional(v.string()), content: v.optional(Any), clientMetadata: v.optional(v.array(v.record(v.string(), v.unknown()))),
  finishedAt: v.optional(Iso), steeredAt: v.optional(Iso),
});
export const AgentRecordB = v.looseObject({
  agentId: v.string(), type: v.optional(v.picklist(['main', 'sub', 'independent'])), parentAgentId: v.optional(v.string()), label: v.optional(v.string()),
  createdAt: v.optional(Iso), disposedAt: v.optional(Iso),
});
const Phase = v.pipe(v.looseObject({
  kind: v.picklist(['idle', 'running', 'tool_call', 'retrying', 'awaiting_approval', 'interrupted', 'ended']),
  turnId: v.optional(v.pipe(v.number(), v.description('the turn ordinal'))), step: v.optional(v.number()), stepId: v.optional(v.string()),
  toolCallId: v.optional(v.string()), name: v.optional(v.string()), since: v.optional(v.pipe(v.number(), v.description('epoch ms'))),
  at: v.optional(v.pipe(v.number(), v.description('epoch ms'))), reason: v.optional(v.string()), message: v.optional(v.string()),
  durationMs: v.optional(v.number()), approval: v.optional(Any),
}), v.description('what the agent is doing (clients.md B5): running a step, in a tool call, waiting for an approval, retrying, interrupted or ended'));

const AgentMeta = v.pipe(v.looseObject({
  model: v.optional(v.string()), thinkingEffort: v.optional(v.pipe(v.string(), v.description('`off`, `on` or the effort'))),
  usage: v.optional(v.object({
    total: v.optional(StepUsageRecord), currentTurn: v.optional(StepUsageRecord), byModel: v.optional(v.record(v.string(), StepUsageRecord)),
  })),
  contextTokens: v.optional(v.number()), maxContextTokens: v.optional(v.number()), contextUsage: v.optional(v.pipe(v.number(), v.description('0-1'))),
  permission: v.optional(v.picklist(['manual', 'yolo', 'auto'])), phase: v.optional(Phase),
}), v.description('the agent\'s status: settings as its last turn started (or as the profile changed them), token usage, context, phase'));

const metaOf = (nullable: boolean) => {
  const n = <T extends v.GenericSchema>(x: T) => (nullable ? v.nullable(x) : x);
  return v.pipe(v.looseObject({
    activity: v.optional(v.picklist(['idle', 'turn', 'disposing', 'unknown'])),
    goal: v.optional(n(v.looseObject({ objective: v.string(), status: v.string(), budgetUsed: v.optional(v.number()), budgetLimit: v.optional(v.number()) }))),
    modes: v.optional(v.pipe(v.object({
      plan: v.optional(n(v.object({ version: v.optional(v.number()), reviewPath: v.optional(v.string()) }))),
      swarm: v.optional(n(v.object({ trigger: v.optional(Any) }))), tower: v.optional(n(v.object({}))),
    }), v.description('plan: plan mode on ({version}: plans reviewed); swarm: dynamic workflow mode on'))),
    agent: v.optional(AgentMeta),
  }), v.description(
    'activity (`turn` while a turn runs, else `idle`), agent, goal, modes'
    + (nullable ? '; `goal: null` and a null mode clear them' : '') + '; and ours: turns, usage, compactions, model, last_turn_reason',
  ));
};
export const TranscriptMeta = metaOf(false);
export const TranscriptMetaPatch = metaOf(true);

const Target = v.variant('type', [
  v.object({ type: v.literal('frame'), turnId: v.string(), stepId: v.string(), frameId: v.string() }),
  v.object({ type: v.literal('task'), taskId: v.string() }),
]);

/** spec/clients.md C: the 14 op kinds. */
export const TranscriptOpRecord = v.variant('op', [
  v.object({ op: v.literal('turn.upsert'), turn: TurnHeader }),
  v.object({ op: v.literal('step.upsert'), turnId: v.string(), step: StepHeader }),
  v.object({ op: v.literal('frame.upsert'), turnId: v.string(), stepId: v.string(), frame: FrameRecord }),
  v.object({ op: v.literal('append'), target: Target, offset: v.pipe(v.number(), v.description('UTF-16 offset in the target\'s own text')), text: v.string() }),
  v.object({ op: v.literal('marker.upsert'), item: MarkerItem, beforeTurn: v.optional(v.number()) }),
  v.object({ op: v.literal('taskref.upsert'), item: TaskRefItem, beforeTurn: v.optional(v.number()) }),
  v.object({ op: v.literal('task.upsert'), task: TaskRecordB }),
  v.object({ op: v.literal('interaction.upsert'), interaction: InteractionRecordB }),
  v.object({ op: v.literal('attachment.upsert'), attachment: AttachmentRecordB }),
  v.object({ op: v.literal('todo.upsert'), todo: TodoRecordB }),
  v.object({ op: v.literal('prompt.upsert'), prompt: PromptRecordB }),
  v.object({ op: v.literal('meta.merge'), meta: TranscriptMetaPatch }),
  v.object({ op: v.literal('items.remove'), ids: v.array(v.string()) }),
  v.object({ op: v.literal('reset'), agentId: v.string(), snapshot: v.unknown() }),
]);

export type RecTurn = v.InferOutput<typeof TurnItem>;
export type RecStep = v.InferOutput<typeof StepRecordB>;
export type RecFrame = v.InferOutput<typeof FrameRecord>;
export type RecMarker = v.InferOutput<typeof MarkerItem>;
export type RecTaskRef = v.InferOutput<typeof TaskRefItem>;
export type RecItem = v.InferOutput<typeof TranscriptItem>;
export type RecTask = v.InferOutput<typeof TaskRecordB>;
export type RecInteraction = v.InferOutput<typeof InteractionRecordB>;
export type RecAttachment = v.InferOutput<typeof AttachmentRecordB>;
export type RecTodo = v.InferOutput<typeof TodoRecordB>;
export type RecPrompt = v.InferOutput<typeof PromptRecordB>;
export type RecAgentRec = v.InferOutput<typeof AgentRecordB>;
export type RecOp = v.InferOutput<typeof TranscriptOpRecord>;
