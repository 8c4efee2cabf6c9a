import type { EventType } from '../../protocol/events/registry.ts';

/** Event types of tool execution (schemas: protocol/events/tools.ts, deltas.ts). */
export const ToolEvents = {
  callStarted: 'tool.call.started',
  /** Volatile: streamed arguments of a call, before it runs. */
  callDelta: 'tool.call.delta',
  progress: 'tool.progress',
  result: 'tool.result',
} as const satisfies Record<string, EventType>;
