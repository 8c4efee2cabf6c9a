import type { ContractChecker } from '../../protocol/contract-check.ts';
import type { PayloadOf, VolatileType } from '../../protocol/events/registry.ts';

/** Receives every volatile publish (the WebSocket hub's fan-out). */
export type VolatileListener = (sessionId: string, type: VolatileType, payload: unknown, offset?: number) => void;

/**
 * Volatile events (`*.delta`, `tool.progress`, `shell.*`): published by the engine, tools and tasks,
 * delivered at once to the listeners, never journaled, never replayed. Publishes typed by the event
 * registry; given a checker (test runs), each is checked against its entry first (docs/events.md).
 */
export class VolatileBus {
  private listeners: VolatileListener[] = [];
  private readonly checker: ContractChecker | undefined;

  constructor(opts: { checker?: ContractChecker } = {}) {
    this.checker = opts.checker;
  }

  publish<T extends VolatileType>(sessionId: string, type: T, payload: PayloadOf<T>, offset?: number): void {
    this.checker?.check(type, sessionId, 'volatile', payload);
    // Hot path (one call per streamed delta): a plain loop over a short array.
    for (const l of this.listeners) l(sessionId, type, payload, offset);
  }

  /** Adds a listener; returns its removal. */
  subscribe(listener: VolatileListener): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }
}
