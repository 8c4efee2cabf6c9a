import type { JournalEvent } from '../../journal/types.ts';
import type {
  AgentRec, AttachmentRec, ContentPart, DurableType, InteractionRec, Message, PayloadOf, StepRec, TaskRec, TodoRec, TurnRec, UserMessageRec,
} from '../contract.ts';
import { newRecordsState, type OpsOut, type RecordsState } from './records-state.ts';

/** One user message of an agent while folding: its turn's state is looked up when viewed. */
export interface UserEntry {
  message_id: string;
  prompt_id?: string;
  origin: UserMessageRec['origin'];
  content: ContentPart[];
  turn_id: string | null;
  /** State when no turn owns it (queued, or cancelled before running). */
  state: UserMessageRec['state'];
  started_at?: string;
}

export type ToolCallRec = StepRec['tool_calls'][number];

/** Everything the transcript views need about one agent, folded from its events. */
export interface AgentState {
  turns: TurnRec[];
  byTurn: Map<string, TurnRec>;
  current?: TurnRec;
  /** Messages of a turn created before its first step (steered prompts). */
  early: Map<string, Message[]>;
  calls: Map<string, ToolCallRec & { turn_id?: string }>;
  users: UserEntry[];
  byMessage: Map<string, UserEntry>;
  byPrompt: Map<string, UserEntry>;
  attachments: Map<string, AttachmentRec>;
  todos: TodoRec[];
  interactions: Map<string, InteractionRec>;
  compactions: number;
}

/** The folded session: per agent state, the roster, the tasks. */
export interface TranscriptState {
  agents: Map<string, AgentState>;
  roster: Map<string, AgentRec>;
  tasks: Map<string, TaskRec>;
  /** Prompts that activated a skill (skill.activated with a prompt_id). */
  skillPrompts: Set<string>;
  /** Prompts that ran a plugin command (plugin_command.activated). */
  commandPrompts: Set<string>;
  /** The client records (spec/clients.md B), folded by records.ts. */
  rec: RecordsState;
}

export function newAgentState(): AgentState {
  return {
    turns: [], byTurn: new Map(), early: new Map(), calls: new Map(), users: [], byMessage: new Map(), byPrompt: new Map(),
    attachments: new Map(), todos: [], interactions: new Map(), compactions: 0,
  };
}

export function newTranscriptState(): TranscriptState {
  return {
    agents: new Map([['main', newAgentState()]]),
    roster: new Map([['main', { agent_id: 'main', kind: 'main', state: 'idle' }]]),
    tasks: new Map(),
    skillPrompts: new Set(),
    commandPrompts: new Set(),
    rec: newRecordsState(),
  };
}

export function agentState(s: TranscriptState, agentId: string): AgentState {
  let a = s.agents.get(agentId);
  if (!a) s.agents.set(agentId, (a = newAgentState()));
  return a;
}

/**
 * A text part the server put in a prompt for an activated skill (`<skill name=...>`) or a plugin command
 * (`<command name=...>`, src/skills/activation.ts): not what the user typed, so not the prompt's text.
 */
export function isActivationText(text: string): boolean {
  return text.startsWith('<skill name=') || text.startsWith('<command name=');
}

/** The agent an event belongs to: its payload's `agent_id`, `main` when absent. */
export function agentIdOf(payload: unknown): string {
  return (payload as { agent_id?: string } | null | undefined)?.agent_id ?? 'main';
}

/** How one event type changes the transcript; the record families put the ops it makes in `o` (records-state.ts). */
export type Handler<T extends DurableType> = (s: TranscriptState, p: PayloadOf<T>, e: JournalEvent, o: OpsOut) => void;

/**
 * One record family's reducer (turns, user messages, interactions, ...): a handler per event type it reads,
 * keyed by the registry's names, each given that type's payload.
 */
export type Family = { readonly [T in DurableType]?: Handler<T> };
