import { engineReactions, type CommittedSubscriber, type EngineReactionParts } from '../../app/subscribers.ts';
import type { JournalEvent } from '../../../journal/types.ts';

/**
 * The reactions to committed events of a print run, in the order they run: the engine's (src/app/subscribers.ts,
 * in the daemon's order), then print mode's own. Not here: the WebSocket fan-out, terminals, auto titles (a title
 * would cost a model request the run would wait for), goals and the search index (the daemon that adopts the run's
 * journal slot indexes its sessions).
 */
export function printSubscribers(core: EngineReactionParts, own: {
  /** Follows the main agent's turns (src/cli/print/turns.ts). */
  turns: (events: JournalEvent[]) => void;
  /** Refuses approvals and dismisses questions (src/cli/print/unattended.ts). */
  unattended: (events: JournalEvent[]) => Promise<unknown> | void;
  /** stream-json: the session's frames on stdout (src/cli/print/output.ts). */
  output: (events: JournalEvent[]) => void;
}): CommittedSubscriber[] {
  return [
    ...Object.values(engineReactions(core)),
    // Print mode's own: the frames first, so a stream-json reader sees an event before what the run does about it.
    { name: 'print output', onCommitted: own.output },
    { name: 'print turns', onCommitted: own.turns },
    { name: 'print unattended', onCommitted: own.unattended },
  ];
}
