import type { Ids } from '../lib/ids.ts';
import type { ContentPart, Message, MessageCreatedPayload } from '../../protocol/events/turns.ts';
import type { NewEvent } from '../../protocol/events/registry.ts';
import { INTERRUPTED_RESULT } from './tool-pairing.ts';
import { known } from '../../protocol/events/known.ts';

interface Ev { type: string; payload: any }

type Call = { id: string; name: string };
type Outcome = { content: string; is_error: boolean };

/** Where the answers go: the turn left open and the ids and time they are written with. */
export interface OpenCallsSite {
  sessionId: string;
  agentId: string;
  turnId: string;
  now: string;
  ids: Ids;
}

/**
 * The events that answer the tool calls an interrupted turn left without a result (a kill -9 or a crash
 * between a step's calls and its tool message): each call gets the outcome its `tool.result` recorded when
 * it had finished, else `INTERRUPTED_RESULT` with a `tool.result` of its own (so its transcript frame ends
 * as an error); then one `message.created` tool message holds them all. Empty when every call was answered.
 * Written before the turn's `turn.ended`, so the history a replay of the journal rebuilds is valid too.
 */
export function answerOpenCalls(events: readonly Ev[], site: OpenCallsSite): NewEvent[] {
  const mine = (p: any) => (p?.agent_id ?? 'main') === site.agentId;
  const messages: Message[] = [];
  const recorded = new Map<string, Outcome>();
  for (const e of events) {
    if (known(e).type === 'message.created' && mine(e.payload) && e.payload.turn_id === site.turnId) messages.push((e.payload as MessageCreatedPayload).message);
    else if (known(e).type === 'tool.result' && mine(e.payload)) recorded.set(e.payload.tool_call_id, { content: e.payload.content, is_error: e.payload.is_error });
  }
  const open = unansweredCalls(messages);
  if (!open.length) return [];
  const results = open.map((c) => ({ call: c, known: recorded.get(c.id) }));
  const turn = { agent_id: site.agentId, turn_id: site.turnId };
  const message = toolMessage(site, results.map(({ call, known }) => resultPart(call, known ?? { content: INTERRUPTED_RESULT, is_error: true })));
  return [
    ...results.filter((r) => !r.known).map((r): NewEvent => ({
      type: 'tool.result',
      payload: { ...turn, tool_call_id: r.call.id, tool_name: r.call.name, is_error: true, content: INTERRUPTED_RESULT, duration_ms: 0 },
    })),
    { type: 'message.created', payload: { ...turn, message } },
  ];
}

/** The tool calls of `messages` (one agent's, oldest first) that no later tool message answers. */
export function unansweredCalls(messages: readonly Message[]): Call[] {
  const answered = new Set<string>();
  for (const m of messages) if (m.role === 'tool') for (const p of m.content) if (p.type === 'tool_result') answered.add(p.tool_use_id);
  const open: Call[] = [];
  for (const m of messages) {
    // Partial output of a cancelled attempt is not model context (src/engine/history.ts).
    if (m.role !== 'assistant' || m.metadata?.interrupted) continue;
    for (const p of m.content) if (p.type === 'tool_use' && !answered.has(p.id) && !open.some((c) => c.id === p.id)) open.push({ id: p.id, name: p.name });
  }
  return open;
}

/** A tool message answering each of `calls` with the interrupted result (a turn that crashed in the middle of its calls). */
export function interruptedToolMessage(site: Omit<OpenCallsSite, 'agentId' | 'turnId'>, calls: readonly Call[]): Message {
  return toolMessage(site, calls.map((c) => resultPart(c, { content: INTERRUPTED_RESULT, is_error: true })));
}

function resultPart(call: Call, o: Outcome): ContentPart {
  return { type: 'tool_result', tool_use_id: call.id, name: call.name, content: o.content, ...(o.is_error ? { is_error: true } : {}) };
}

function toolMessage(site: Pick<OpenCallsSite, 'sessionId' | 'now' | 'ids'>, content: ContentPart[]): Message {
  return { id: site.ids.next('msg'), session_id: site.sessionId, role: 'tool', content, created_at: site.now };
}
