import { Journal } from '../../journal/journal.ts';
import type { JournalEvent } from '../../journal/types.ts';
import type { NewStreamEvent } from './registry.ts';

/**
 * The journal as src/ appends to it: every event typed by its registry entry, so a wrong payload
 * fails typecheck. journal/ itself knows nothing of event types.
 */
export class EventJournal extends Journal {
  override append(events: NewStreamEvent[]): Promise<JournalEvent[]> {
    return super.append(events);
  }
}
