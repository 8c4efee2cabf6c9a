import type { JournalEvent } from '../../../journal/types.ts';
import type { Usage } from '../../../protocol/events/common.ts';
import type { Message, TurnEndedPayload } from '../../../protocol/events/turns.ts';
import { MAIN_AGENT } from '../../engine/turn.ts';
import { known } from '../../../protocol/events/known.ts';

/** How the run's main-agent turns went, read from the session's committed events. */
export interface TurnsSoFar {
  /** Main-agent turns that started / ended during the run. */
  started: number;
  ended: number;
  /** The last one's end (null before any ended). */
  last: TurnEndedPayload | null;
  /** The text of the last turn's last assistant message that had any. */
  text: string;
  /** Summed over the run's turns. */
  usage: Usage;
}

const ZERO: Usage = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0 };

/**
 * A reaction to committed events (registered by the print run): follows the main agent's turns in one session,
 * keeps what the result reports, and wakes whoever waits for a turn's end.
 */
export class TurnWatch {
  private readonly state: TurnsSoFar = { started: 0, ended: 0, last: null, text: '', usage: { ...ZERO } };
  private current: string | undefined;
  /** Settles at the next turn end; one for every waiter (a poll loop asks for it again and again). */
  private end?: { promise: Promise<void>; resolve: () => void };

  constructor(private readonly sessionId: string) {}

  readonly onCommitted = (events: JournalEvent[]): void => {
    let changed = false;
    for (const e of events) {
      if (e.stream !== this.sessionId) continue;
      const p = e.payload as { agent_id?: string; turn_id?: string };
      if ((p.agent_id ?? MAIN_AGENT) !== MAIN_AGENT) continue;
      if (known(e).type === 'turn.started') {
        this.current = p.turn_id;
        this.state.started += 1;
        this.state.text = '';
      } else if (known(e).type === 'message.created' && p.turn_id === this.current) {
        const text = textOf((e.payload as { message: Message }).message);
        if (text) this.state.text = text;
      } else if (known(e).type === 'turn.ended') {
        const ended = e.payload as TurnEndedPayload;
        this.state.ended += 1;
        this.state.last = ended;
        for (const k of Object.keys(ZERO) as Array<keyof Usage>) this.state.usage[k] += ended.usage[k];
        changed = true;
      }
    }
    if (changed) {
      this.end?.resolve();
      this.end = undefined;
    }
  };

  get started(): number {
    return this.state.started;
  }

  get ended(): number {
    return this.state.ended;
  }

  snapshot(): TurnsSoFar {
    return { ...this.state, usage: { ...this.state.usage } };
  }

  /** Resolves at the next main-agent turn end. */
  nextEnd(): Promise<void> {
    if (!this.end) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.end = { promise, resolve };
    }
    return this.end.promise;
  }
}

/** An assistant message's text parts, joined. */
function textOf(m: Message): string {
  if (m.role !== 'assistant') return '';
  return m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
}
