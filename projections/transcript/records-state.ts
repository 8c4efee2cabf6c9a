import type {
  RecAgentRec, RecAttachment, RecFrame, RecInteraction, RecItem, RecMarker, RecOp, RecPrompt, RecStep, RecTask, RecTodo, RecTurn,
} from '../../protocol/schemas/transcript-records.ts';

// The client records of the transcript (docs/transcript.md "Records"; spec/clients.md B): what GET /transcript
// answers and what the ops of the transcript channel build, folded by records.ts.

export type { RecAgentRec, RecAttachment, RecFrame, RecInteraction, RecItem, RecMarker, RecOp, RecPrompt, RecStep, RecTask, RecTodo, RecTurn };

/** Frame bookkeeping of one step: text and thinking frames opened by deltas, not yet matched by the step's message. */
export interface StepSide {
  /** k of the last `<stepId>.f<k>` frame. */
  frames: number;
  /** The text / thinking frame deltas are appended to (closed by a tool call or a message). */
  open?: RecFrame & { kind: 'text' | 'thinking' };
  /** Frames deltas opened, in order, that no message.created has claimed yet. */
  unclaimed: Array<RecFrame & { kind: 'text' | 'thinking' }>;
}

/** One agent's records. */
export interface RecAgent {
  items: RecItem[];
  /** Turns by `t<ordinal>` and by the engine's turn id. */
  turns: Map<string, RecTurn>;
  byEngineTurn: Map<string, RecTurn>;
  /** The engine turn id behind each `t<ordinal>`. */
  engineTurn: Map<string, string>;
  /** The message that opened each turn (`t<ordinal>`): an undo removes the turns whose opening message it removes. */
  opening: Map<string, string>;
  nextOrdinal: number;
  markers: number;
  steps: Map<string, StepSide>;
  /** User-role frames (steers, task notes) waiting for the next step of their turn. */
  pendingUser: Map<string, RecFrame[]>;
  /** Tool frames by tool call id, with the step that holds them. */
  tools: Map<string, { turn: RecTurn; step: RecStep }>;
  interactions: Map<string, RecInteraction>;
  attachments: Map<string, RecAttachment>;
  todos: Map<string, RecTodo>;
  prompts: Map<string, RecPrompt>;
  /** Text and attachment ids of each prompt not yet started (the turn it starts takes them). */
  promptText: Map<string, { text: string; attachmentIds: string[] }>;
  meta: Record<string, unknown>;
  /** Who queued each prompt not yet started, and the skills it activated (the turn's `origin`; records-origin.ts). */
  origins: Map<string, PromptOrigin>;
  /** Plans put up for review (ExitPlanMode): the `plan.revision` markers, `modes.plan.version`. */
  plans: number;
  /** Live folds: the progress of calls whose tool frame the fold does not hold yet (records-live.ts); cleared at turn end. */
  pendingProgress: Map<string, RecToolProgress>;
  /** Live folds: the oldest turns left out (records-trim.ts); undefined when every turn is held. */
  trimmed?: TrimmedTurns;
}

/** What a live fold's agent no longer holds: its oldest turns (records-trim.ts), counted for `meta`. */
export interface TrimmedTurns {
  /** Turns out (their items: every item before the turn `before`). */
  turns: number;
  /** Ordinal of the oldest turn still held. */
  before: number;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
}

export type RecToolProgress = NonNullable<Extract<RecFrame, { kind: 'tool' }>['progress']>;

/** What a turn's `origin` is built from. */
export interface PromptOrigin {
  source?: 'user' | 'skill' | 'goal' | 'task';
  skills: Array<{ skillName: string; skillArgs?: string }>;
  /** The plugin command the prompt runs (`plugin_command.activated`). */
  command?: { pluginId: string; commandName: string; commandArgs?: string };
  /** Source `task`: the tasks whose notes the prompt delivers. */
  taskIds?: string[];
}

/** An op with the agent whose channel carries it. */
export interface EmittedOp { agentId: string; op: RecOp }

export interface RecordsState {
  agents: Map<string, RecAgent>;
  tasks: Map<string, RecTask>;
  /** How a subagent's task ended (resultSummary, usage, error, stateReason), kept for the task record in either event order. */
  taskOutcomes: Map<string, Partial<RecTask>>;
  /** The session's working directory (`session.created`): Bash runs there, its `command` block says so. */
  cwd?: string;
}

export function newRecAgent(): RecAgent {
  return {
    items: [], turns: new Map(), byEngineTurn: new Map(), engineTurn: new Map(), opening: new Map(), nextOrdinal: 0, markers: 0, steps: new Map(), pendingUser: new Map(),
    tools: new Map(), interactions: new Map(), attachments: new Map(), todos: new Map(), prompts: new Map(), promptText: new Map(), meta: {},
    origins: new Map(), plans: 0, pendingProgress: new Map(),
  };
}

export function newRecordsState(): RecordsState {
  return { agents: new Map(), tasks: new Map(), taskOutcomes: new Map() };
}

export function recAgent(s: RecordsState, agentId: string): RecAgent {
  let a = s.agents.get(agentId);
  if (!a) s.agents.set(agentId, (a = newRecAgent()));
  return a;
}

/** Where the record handlers put the ops an input makes (spec/clients.md C2): a live fold keeps them, a fold of the journal drops them. */
export interface OpsOut {
  emit(agentId: string, op: RecOp): void;
}

/** A fold of the journal (GET /transcript pages, restores, the export): no ops. */
export const NO_OPS: OpsOut = { emit: () => {} };

/**
 * The ops of one input, in order (what applyLive / applyVolatile return). The `meta.merge` ops one input makes for
 * an agent (several families patch `meta`) join into one, at the place of the first: merges compose (C: `goal` and
 * plain keys replaced, `modes` merged key by key, `agent` shallow-merged), and no other op reads `meta`, so the
 * client's result is the same.
 */
export class OpList implements OpsOut {
  readonly ops: EmittedOp[] = [];

  emit(agentId: string, op: RecOp): void {
    if (op.op === 'meta.merge') {
      const prev = this.ops.find((o) => o.agentId === agentId && o.op.op === 'meta.merge');
      if (prev?.op.op === 'meta.merge') {
        prev.op = { op: 'meta.merge', meta: composeMeta(prev.op.meta, op.meta) };
        return;
      }
    }
    this.ops.push({ agentId, op });
  }
}

type MetaPatch = Extract<RecOp, { op: 'meta.merge' }>['meta'];

/** Two `meta.merge` patches as one: `b` applied after `a`. */
function composeMeta(a: MetaPatch, b: MetaPatch): MetaPatch {
  const out: Record<string, unknown> = { ...a, ...b };
  const am = a as Record<string, unknown>;
  const bm = b as Record<string, unknown>;
  if (isObj(am.modes) && isObj(bm.modes)) out.modes = { ...am.modes, ...bm.modes };
  if (isObj(am.agent) && isObj(bm.agent)) out.agent = { ...am.agent, ...bm.agent };
  return out as MetaPatch;
}

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** An event's token usage as a StepUsage (B): the one conversion both record families use. */
export function stepUsage(u: { input_tokens: number; output_tokens: number; cache_read_tokens: number; cache_creation_tokens: number }) {
  return { inputOther: u.input_tokens, output: u.output_tokens, inputCacheRead: u.cache_read_tokens, inputCacheCreation: u.cache_creation_tokens };
}

/** A turn header as `turn.upsert` carries it: the record without its steps. */
export function turnHeader(t: RecTurn): Omit<RecTurn, 'steps'> {
  const { steps: _steps, ...rest } = t;
  return rest;
}

export function stepHeader(st: RecStep): Omit<RecStep, 'frames'> {
  const { frames: _frames, ...rest } = st;
  return rest;
}
