import * as v from 'valibot';
import { AgentId } from './common.ts';
import { defineEvent } from './define.ts';

/** Streamed text of a running step: volatile, to subscribers only, never journaled; `offset` is also on the frame. */

const Delta = { agent_id: AgentId, turn_id: v.string(), step: v.number() };

/** The streamed text under the name the reference server sends it (spec/clients.md F `delta`), beside `text`. */
const textDelta = { entries: { delta: v.pipe(v.string(), v.description('= text')) }, build: (p: Record<string, unknown>) => ({ delta: p.text }) };

const assistantDelta = defineEvent({
  type: 'assistant.delta', stream: 'session', durability: 'volatile', receivers: 'subscribers', transcript: 'delta',
  summary: 'Streamed answer text; offset = where text starts within the turn\'s text of that kind',
  payload: v.object({ ...Delta, text: v.string(), offset: v.number() }),
  turn: 'step',
  extend: textDelta,
});

const thinkingDelta = defineEvent({
  type: 'thinking.delta', stream: 'session', durability: 'volatile', receivers: 'subscribers', transcript: 'delta',
  summary: 'Streamed thinking text; offset = where text starts within the turn\'s text of that kind',
  payload: v.object({ ...Delta, text: v.string(), offset: v.number() }),
  turn: 'step',
  extend: textDelta,
});

const toolCallDelta = defineEvent({
  type: 'tool.call.delta', stream: 'session', durability: 'volatile', receivers: 'subscribers', transcript: 'delta',
  summary: 'Streamed arguments (JSON text) of a tool call the model is writing; offset = where delta starts within that call\'s arguments. '
    + 'tool.call.started carries the parsed input once the call is complete',
  payload: v.object({ ...Delta, tool_call_id: v.string(), tool_name: v.string(), delta: v.string(), offset: v.number() }),
  turn: 'step',
  extend: {
    entries: { name: v.pipe(v.string(), v.description('= tool_name')), argumentsPart: v.pipe(v.string(), v.description('= delta: the next part of the arguments\' JSON text')) },
    build: (p) => ({ name: p.tool_name, argumentsPart: p.delta }),
  },
});

export const DELTA_EVENTS = [assistantDelta, thinkingDelta, toolCallDelta] as const;
