import { Journal, type JournalOptions } from '../../journal/journal.ts';
import type { JournalEvent } from '../../journal/types.ts';
import { EventCheckError, type ContractChecker } from '../../protocol/contract-check.ts';
import { eventDef, type NewStreamEvent } from '../../protocol/events/registry.ts';

/**
 * The journal as src/ appends to it: every event typed by its registry entry (a wrong payload fails
 * typecheck) and, given a checker (test runs), checked at append time; an event that does not match
 * is refused. journal/ itself knows nothing of event types.
 */
export class EventJournal extends Journal {
  private readonly checker: ContractChecker | undefined;

  constructor(opts: JournalOptions & { checker?: ContractChecker }) {
    super(opts);
    this.checker = opts.checker;
  }

  /** `recheck`: the events decided again after a conflict on a shared stream (journal/journal.ts `append`). */
  override append(events: NewStreamEvent[], o?: { recheck?: () => NewStreamEvent[] }): Promise<JournalEvent[]> {
    return super.append(events, o);
  }

  /**
   * Both verbs land here (`append` calls it): each event's registry companions join the end of its batch
   * (protocol/events/define.ts `companions`); a test-time mismatch is refused like an unencodable record.
   */
  override appendNow(given: NewStreamEvent[], o?: { recheck?: () => NewStreamEvent[] }): Promise<JournalEvent[]> {
    const events = this.checked(withCompanions(given));
    const recheck = o?.recheck;
    return super.appendNow(events, recheck && { recheck: () => this.checked(withCompanions(recheck())) });
  }

  private checked(events: NewStreamEvent[]): NewStreamEvent[] {
    if (this.checker) {
      const found = events.flatMap((e) => this.checker!.check(e.type, e.stream, 'durable', e.payload) ?? []);
      if (found.length) throw new EventCheckError(found);
    }
    return events;
  }

  /** `removeStream` with registry-typed events, checked like any append. */
  override removeStream(stream: string, events: NewStreamEvent[], ranges?: { gte: string; lt: string }[]): Promise<JournalEvent[]> {
    if (this.checker) {
      const found = events.flatMap((e) => this.checker!.check(e.type, e.stream, 'durable', e.payload) ?? []);
      if (found.length) return Promise.reject(new EventCheckError(found));
    }
    return super.removeStream(stream, events, ranges);
  }
}

/** `events`, then the companions of each, in order (the same array when none has any): the batch's own order is kept. */
function withCompanions(events: NewStreamEvent[]): NewStreamEvent[] {
  const more = events.flatMap((e) => (eventDef(e.type)?.companions?.(e.payload as Record<string, unknown>) ?? [])
    .map((c) => ({ stream: e.stream, ...c }) as NewStreamEvent));
  return more.length ? [...events, ...more] : events;
}
