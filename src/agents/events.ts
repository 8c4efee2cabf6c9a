import type { EventType } from '../../protocol/events/registry.ts';

/** Subagent lifecycle events on the session stream (Core Events "Subagents"; schemas: protocol/events/subagents.ts). */
export const SubagentEvents = {
  spawned: 'subagent.spawned',
  started: 'subagent.started',
  suspended: 'subagent.suspended',
  completed: 'subagent.completed',
  failed: 'subagent.failed',
} as const satisfies Record<string, EventType>;
