import type { EventType } from '../../protocol/events/registry.ts';

/**
 * Names of the agent engine's events (issue 3); their streams and payload schemas are in the
 * registry (protocol/events/turns.ts, deltas.ts, session.ts). Durable ones go on the session's stream
 * (or the global stream where noted); volatile ones go through the volatile bus (src/events/volatile-bus.ts).
 */
export const EngineEvents = {
  /** A prompt was accepted (queued, or about to run). */
  promptAccepted: 'prompt.accepted',
  /** Queued prompts were folded into the active turn. */
  promptSteered: 'prompt.steered',
  /** A queued or running prompt was aborted. */
  promptAborted: 'prompt.aborted',
  /** A message entered the session history (user, assistant, tool, system). */
  messageCreated: 'message.created',
  turnStarted: 'turn.started',
  turnEnded: 'turn.ended',
  stepStarted: 'turn.step.started',
  stepCompleted: 'turn.step.completed',
  stepInterrupted: 'turn.step.interrupted',
  stepRetrying: 'turn.step.retrying',
  /** Volatile: cumulative `offset` of text within the turn. */
  assistantDelta: 'assistant.delta',
  thinkingDelta: 'thinking.delta',
  /** Session title generated (not a custom one). Also broadcast as session.meta.updated. */
  titleGenerated: 'session.title_generated',
  /** Global stream: busy / main_turn_active changed. */
  workChanged: 'event.session.work_changed',
  /** Global stream: busy / main_turn_active / pending_interaction changed. */
  statusChanged: 'event.session.status_changed',
} as const satisfies Record<string, EventType>;
