/** Event types of tool execution (payloads documented in src/ws/engine-event-docs.ts). */
export const ToolEvents = {
  callStarted: 'tool.call.started',
  progress: 'tool.progress',
  result: 'tool.result',
} as const;
