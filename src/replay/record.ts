import { strFromU8 } from 'fflate';
import { readArchive, streamRecords } from '../archive/import.ts';
import type { JournalLine, Manifest } from '../archive/format.ts';
import type { ContentPart } from '../../protocol/events/turns.ts';
import type { WireError } from '../providers/wire/types.ts';
import { textOf } from '../../protocol/schemas/messages.ts';
import { known } from '../../protocol/events/known.ts';

/** One model request's recorded outcome: what it streamed, then its usage and finish, or the error that ended it. */
export interface Answer {
  agentId: string;
  parts: ContentPart[];
  usage?: { input_tokens: number; output_tokens: number; cache_read_tokens: number; cache_creation_tokens: number };
  finish?: string;
  error?: WireError;
}

/** A recorded tool call's outcome and the events the tool itself journaled (`file.changed`). */
export interface ToolRecord {
  agentId: string;
  toolCallId: string;
  toolName: string;
  content: string;
  isError: boolean;
  events: Array<{ type: string; payload: Record<string, unknown> }>;
}

/** What a replay reads from an export (docs/replay.md): the session's stream and what was recorded in it. */
export interface Recording {
  manifest: Manifest;
  /** The exported session's own stream, oldest first (children's streams are not replayed). */
  events: JournalLine[];
  /** `settings.json` `config.raw`: the origin's config.toml with its secrets removed, when the archive has it. */
  rawConfig: Record<string, unknown> | undefined;
  session: { cwd: string; title: string; metadata: Record<string, unknown>; agent_config: Record<string, unknown>; created_at: string };
  answers: Answer[];
  tools: ToolRecord[];
  /** User message texts per agent (a model request is matched to its agent by them). */
  userTexts: Map<string, Set<string>>;
}

type Payload = Record<string, any>;

/** Reads an export (checked as an import checks it) into what the replay serves and compares. */
export function readRecording(zip: Uint8Array): Recording {
  const { manifest, files } = readArchive(zip);
  const main = manifest.streams[0]!;
  const events: JournalLine[] = streamRecords(strFromU8(files[main.file]!), main).map((e, i) => ({ seq: i + 1, epoch: main.epoch, ...e }));
  const first = events[0];
  const created = first && known(first).type === 'session.created' ? ((first.payload as Payload).session as Payload) : undefined;
  if (!created) throw new Error('the session stream does not start with session.created');
  let rawConfig: Record<string, unknown> | undefined;
  if (files['settings.json']) {
    const settings = JSON.parse(strFromU8(files['settings.json'])) as Payload;
    if (settings?.config?.raw && typeof settings.config.raw === 'object') rawConfig = settings.config.raw as Record<string, unknown>;
  }
  return {
    manifest, events, rawConfig,
    session: {
      cwd: String(created.cwd ?? ''), title: String(created.title ?? ''), created_at: String(created.created_at ?? events[0]!.ts),
      metadata: (created.metadata ?? {}) as Record<string, unknown>, agent_config: (created.agent_config ?? {}) as Record<string, unknown>,
    },
    answers: modelAnswers(events),
    tools: toolRecords(events),
    userTexts: userTexts(events),
  };
}

/** A message's text as the replay matches a model request to its agent by it (text parts joined with nothing between). */
export const userText = (content: unknown): string => textOf(content, '');

/**
 * The model's answers in the order they were asked: an assistant `message.created` and its
 * `turn.step.completed` (usage, finish); an attempt that failed, retried or was cancelled is its partial
 * message (metadata.interrupted) and the error of `turn.step.retrying` / `turn.step.interrupted`.
 */
function modelAnswers(events: JournalLine[]): Answer[] {
  const answers: Answer[] = [];
  const byMessage = new Map<string, Answer>();
  const partial = new Map<string, ContentPart[]>();
  const failed = (agentId: string, error: WireError) => {
    answers.push({ agentId, parts: partial.get(agentId) ?? [], error });
    partial.delete(agentId);
  };
  for (const e of events) {
    const p = e.payload as Payload;
    const agentId = String(p?.agent_id ?? 'main');
    if (known(e).type === 'message.created' && p.message?.role === 'assistant' && p.turn_id) {
      if (p.message.metadata?.interrupted) {
        partial.set(agentId, p.message.content as ContentPart[]);
        continue;
      }
      const a: Answer = { agentId, parts: p.message.content as ContentPart[] };
      answers.push(a);
      byMessage.set(String(p.message.id), a);
    } else if (known(e).type === 'turn.step.completed') {
      const a = byMessage.get(String(p.message_id));
      if (a) Object.assign(a, { usage: p.usage, finish: p.finish_reason });
    } else if (known(e).type === 'turn.step.retrying') {
      // A refusal as too long replays as such (the engine then compacts); any other retried failure was transient.
      const kind = p.error?.kind === 'context_overflow' ? 'context_overflow' : 'transient';
      failed(agentId, { kind, message: String(p.error?.message ?? 'retried'), ...(p.error?.status !== undefined ? { status: p.error.status } : {}) });
    } else if (known(e).type === 'turn.step.interrupted') {
      failed(agentId, p.reason === 'cancelled'
        ? { kind: 'aborted', message: 'turn cancelled' }
        : { kind: p.error?.kind ?? 'other', message: String(p.error?.message ?? 'failed'), ...(p.error?.status !== undefined ? { status: p.error.status } : {}) });
    }
  }
  return answers;
}

/** Every tool call from `tool.call.started` to its `tool.result`, with the `file.changed` it journaled. */
function toolRecords(events: JournalLine[]): ToolRecord[] {
  const open = new Map<string, ToolRecord>();
  const done: ToolRecord[] = [];
  const key = (p: Payload) => `${String(p.agent_id ?? 'main')}\u0000${String(p.tool_call_id)}`;
  for (const e of events) {
    const p = e.payload as Payload;
    if (known(e).type === 'tool.call.started') {
      open.set(key(p), { agentId: String(p.agent_id ?? 'main'), toolCallId: String(p.tool_call_id), toolName: String(p.tool_name), content: '', isError: false, events: [] });
    } else if (known(e).type === 'file.changed' && p.tool_call_id !== undefined) {
      open.get(key(p))?.events.push({ type: e.type, payload: p });
    } else if (known(e).type === 'tool.result') {
      const r = open.get(key(p));
      if (!r) continue;
      open.delete(key(p));
      r.content = typeof p.content === 'string' ? p.content : JSON.stringify(p.content);
      r.isError = p.is_error === true;
      done.push(r);
    }
  }
  return done;
}

function userTexts(events: JournalLine[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const e of events) {
    const p = e.payload as Payload;
    if (known(e).type !== 'message.created' || p.message?.role !== 'user') continue;
    const agentId = String(p.agent_id ?? 'main');
    if (!out.has(agentId)) out.set(agentId, new Set());
    out.get(agentId)!.add(userText(p.message.content));
  }
  return out;
}
