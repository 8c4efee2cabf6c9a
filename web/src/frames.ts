// Reading server frames: their types come from protocol/ (protocol/ws/server-frames.ts and the event registry),
// so an event renamed there, or a payload field, breaks this build. Event names are the registry's, written as
// literals that the compiler checks against it; the families below must list every event of theirs.
import type { EventType } from '../../protocol/events/registry.ts';
import type { EventFrameOf, ServerFrame } from '../../protocol/ws/server-frames.ts';

/** Every event of the registry whose name starts with `P`: a key missing here, or one too many, fails the type check. */
type Family<P extends string> = { readonly [K in Extract<EventType, `${P}${string}`>]: true };

const TASK_EVENTS: Family<'task.'> = { 'task.started': true, 'task.terminated': true };
const TERMINAL_EVENTS: Family<'terminal.'> = { 'terminal.opened': true, 'terminal.exited': true, 'terminal.closed': true };
/** The broadcasts that change the sidebar's list (the work / status ones set a badge instead: `WORK_EVENTS`). */
const LIST_EVENTS: Family<'event.session.'> & Family<'event.workspace.'> & Family<'session.meta.'> = {
  'event.session.created': true, 'event.session.archived': true, 'event.session.deleted': true,
  'event.session.work_changed': true, 'event.session.status_changed': true,
  'event.workspace.created': true, 'event.workspace.updated': true, 'event.workspace.deleted': true,
  'session.meta.updated': true,
};

const inFamily = <K extends EventType>(family: { readonly [k in K]: true }, type: string): type is K => Object.hasOwn(family, type);

export const isTaskEvent = (f: ServerFrame): f is EventFrameOf<keyof typeof TASK_EVENTS> => inFamily(TASK_EVENTS, f.type);
export const isTerminalEvent = (f: ServerFrame): f is EventFrameOf<keyof typeof TERMINAL_EVENTS> => inFamily(TERMINAL_EVENTS, f.type);
export const isListEvent = (f: ServerFrame): f is EventFrameOf<keyof typeof LIST_EVENTS> => inFamily(LIST_EVENTS, f.type);

/** A session's busy / approval / question change, broadcast to every connection: a sidebar badge. */
export const isWorkEvent = (f: ServerFrame): f is EventFrameOf<'event.session.status_changed' | 'event.session.work_changed'> =>
  f.type === 'event.session.status_changed' || f.type === 'event.session.work_changed';

/** The session a frame is about; undefined for frames of the connection (`server_hello`, `ack`). */
export const sessionOf = (f: ServerFrame): string | undefined => ('session_id' in f ? f.session_id : undefined);
