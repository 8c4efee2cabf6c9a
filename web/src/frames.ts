import type { Frame } from './api.ts';

// Server frames fanned out to the panels that want them (the terminal's output, tasks, MCP status).
// Main's frame handler calls emitFrame for every frame it gets; a panel listens while mounted.

type Listener = (f: Frame) => void;
const listeners = new Set<Listener>();

export function onFrames(fn: Listener): () => void {
  listeners.add(fn);
  return () => void listeners.delete(fn);
}

export function emitFrame(f: Frame): void {
  for (const fn of listeners) fn(f);
}
