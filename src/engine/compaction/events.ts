import type { EventType } from '../../../protocol/events/registry.ts';

/** Names of the compaction and undo events (schemas: protocol/events/compaction.ts; docs/compaction-undo.md). */
export const CompactionEvents = {
  started: 'compaction.started',
  completed: 'compaction.completed',
  failed: 'compaction.failed',
  /** The last turns of an agent were removed (`:undo`). */
  undone: 'session.undone',
} as const satisfies Record<string, EventType>;
