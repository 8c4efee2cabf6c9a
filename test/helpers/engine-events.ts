import type { ContentPart, Message } from '../../protocol/events/turns.ts';
import type { Usage } from '../../protocol/events/common.ts';
import type { DurableType, NewStreamEvent, PayloadOf } from '../../protocol/events/registry.ts';
import type { TestServer } from './server.ts';
import { Journal } from '../../journal/journal.ts';
import type { PendingEvent } from '../../journal/types.ts';

/** Engine events appended straight to the journal, as the engine would (for read-side tests). */

export function append<T extends DurableType>(s: TestServer, session: string, type: T, payload: PayloadOf<T>) {
  return s.journal.append([{ stream: session, type, payload } as NewStreamEvent]);
}

/**
 * Appends events as they are, past the registry check: for tests of the transport and the windows with
 * payloads (or types) no emitter builds. Everything else goes through `append`, and is checked.
 */
export async function appendUnchecked(s: TestServer, events: PendingEvent[]) {
  return Journal.prototype.appendNow.call(s.journal, events);
}

export function msg(session: string, id: string, role: Message['role'], text: string, extra: ContentPart[] = []): Message {
  return { id, session_id: session, role, content: [{ type: 'text', text }, ...extra], created_at: new Date().toISOString() };
}

/** Appends messages in one batch per call (ids m1..mN by default), alternating user / assistant. */
export async function addMessages(s: TestServer, session: string, count: number, opts: { prefix?: string; agent_id?: string; start?: number } = {}) {
  const start = opts.start ?? 1;
  const events = Array.from({ length: count }, (_, i): NewStreamEvent => {
    const n = start + i;
    const m = msg(session, `${opts.prefix ?? 'm'}${n}`, n % 2 ? 'user' : 'assistant', `message ${n}`);
    return { stream: session, type: 'message.created', payload: { agent_id: opts.agent_id ?? 'main', message: m } };
  });
  await s.journal.append(events);
}

export const usage = (input: number, output: number, read = 0, creation = 0): Usage => ({
  input_tokens: input, output_tokens: output, cache_read_tokens: read, cache_creation_tokens: creation,
});

export function turnStarted(turn: string, prompt: string, agent = 'main') {
  return { agent_id: agent, turn_id: turn, prompt_id: prompt, prompt_ids: [], model: 'acme/smart', started_at: '2026-01-01T00:00:00.000Z' };
}

export function stepCompleted(turn: string, step: number, u: Usage, context: number, messageId?: string, agent = 'main') {
  return { agent_id: agent, turn_id: turn, step, finish_reason: 'stop', usage: u, context_tokens: context, ...(messageId ? { message_id: messageId } : {}) };
}

export function turnEnded(turn: string, prompt: string, agent = 'main') {
  return { agent_id: agent, turn_id: turn, prompt_id: prompt, reason: 'completed' as const, usage: usage(0, 0), steps: 1, ended_at: '2026-01-01T00:00:01.000Z' };
}
