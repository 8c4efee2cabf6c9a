/** Event types of tool execution (payloads documented in src/ws/engine-event-docs.ts). */
export const ToolEvents = {
  callStarted: 'tool.call.started',
  /** Volatile: streamed arguments of a call, before it runs. */
  callDelta: 'tool.call.delta',
  progress: 'tool.progress',
  result: 'tool.result',
} as const;
