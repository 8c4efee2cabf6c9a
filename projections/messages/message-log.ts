import type { JournalEvent } from '../../journal/types.ts';
import { padSeq, projectionKey } from '../../journal/keys.ts';
import type { KeyRange, RecordStore } from '../../journal/store.ts';
import { known, type KnownEventOf, type Message } from '../contract.ts';
import type { Projection, RecordWrite } from '../projection.ts';
import { undoOf } from '../undo.ts';

/** The agent whose messages make up the session's history (subagents have their own transcripts). */
export const MAIN_AGENT = 'main';

const NAME = 'messages';

/**
 * Record keys inside the projection's space (p!messages!...):
 *   m!<session_id>!<seq:12>      the message (seq = journal seq of its message.created event)
 *   i!<session_id>!<message_id>  seq of that message, for cursors and GET by id
 *   u!<session_id>!<seq:12>      ids removed by the `session.undone` event at that seq
 * Keying by the event's own seq needs no counter, and keeps a session's
 * messages contiguous and in order, so every page is one bounded range read.
 */
const msgPrefix = (session: string) => `m!${session}!`;

/** Every record key range of one session (POST /sessions/{id}:delete removes them with its stream). */
export function sessionMessageRanges(session: string): { gte: string; lt: string }[] {
  return ['m', 'i', 'u'].map((k) => ({ gte: projectionKey(NAME, `${k}!${session}!`), lt: projectionKey(NAME, `${k}!${session}!~`) }));
}
const msgKey = (session: string, seq: number) => `${msgPrefix(session)}${padSeq(seq)}`;
const idxKey = (session: string, id: string) => `i!${session}!${id}`;
const undoPrefix = (session: string) => `u!${session}!`;

export interface MessagePage {
  items: Message[];
  has_more: boolean;
}

/**
 * Projection of `message.created` (main agent) into per-session ordered
 * records. Nothing is held in memory: `onDemand` tells the runner not to load
 * records at start, and reads go to LevelDB by key range, so a page costs
 * O(log n + page_size) whatever the session's length.
 */
export class MessageLog implements Projection {
  readonly name = NAME;
  readonly version = 1;
  readonly onDemand = true;

  constructor(private readonly db: RecordStore) {}

  reset(): void {}

  load(): void {}

  apply(event: JournalEvent): RecordWrite[] {
    const e = known(event);
    if (e.type === 'session.undone') return this.undone(e);
    if (e.type !== 'message.created') return [];
    const p = e.payload;
    if ((p.agent_id ?? MAIN_AGENT) !== MAIN_AGENT || !p.message?.id) return [];
    // A forked stream carries copies of the source's events: the stream is the owner.
    const message: Message = { ...p.message, session_id: e.stream };
    return [
      { key: msgKey(e.stream, e.seq), value: message },
      { key: idxKey(e.stream, message.id), value: e.seq },
    ];
  }

  /**
   * `:undo`: the event names message ids, not seqs (a fork's copy of it lands at other seqs), so the
   * ids are recorded as hidden and their index entries dropped; pages skip hidden messages.
   */
  private undone(e: KnownEventOf<'session.undone'>): RecordWrite[] {
    const undo = undoOf(e.payload);
    if (undo.agentId !== MAIN_AGENT || !undo.messageIds.size) return [];
    const ids = [...undo.messageIds];
    return [
      { key: `${undoPrefix(e.stream)}${padSeq(e.seq)}`, value: ids },
      ...ids.map((id) => ({ key: idxKey(e.stream, id), delete: true as const })),
    ];
  }

  /** Ids undone in the session (usually none: one empty range read, of no message record). */
  private async hidden(session: string): Promise<Set<string>> {
    const lo = this.full(undoPrefix(session));
    const rows = (await this.db.entries({ gte: lo, lt: this.full(`${undoPrefix(session)}~`) })) as Array<[string, string[]]>;
    return new Set(rows.flatMap(([, ids]) => ids));
  }

  private full(key: string): string {
    return projectionKey(NAME, key);
  }

  /** Journal seq of a message of the session, or undefined. */
  async seqOf(session: string, id: string): Promise<number | undefined> {
    return (await this.db.get(this.full(idxKey(session, id)))) as number | undefined;
  }

  async get(session: string, id: string): Promise<Message | undefined> {
    const seq = await this.seqOf(session, id);
    return seq === undefined ? undefined : ((await this.db.get(this.full(msgKey(session, seq)))) as Message | undefined);
  }

  /**
   * Up to `size` messages newest first. `older` = strictly older than that seq;
   * `newer` = the `size` oldest strictly newer than that seq (still returned
   * newest first); `upTo` bounds the newest seq considered (snapshots).
   * Reads at most size + 1 records.
   */
  async page(session: string, size: number, from: { older?: number; newer?: number; upTo?: number } = {}): Promise<MessagePage> {
    const lo = this.full(msgPrefix(session));
    const hi = this.full(`${msgPrefix(session)}~`);
    const hidden = await this.hidden(session);
    // At most hidden.size rows are skipped, so one read still fills the page.
    const range: KeyRange & Record<string, unknown> = { limit: size + 1 + hidden.size };
    if (from.newer !== undefined) {
      range.gt = this.full(msgKey(session, from.newer));
      range.lt = hi;
    } else {
      range.gte = lo;
      range[from.older !== undefined ? 'lt' : 'lte'] = from.older !== undefined
        ? this.full(msgKey(session, from.older))
        : from.upTo !== undefined ? this.full(msgKey(session, from.upTo)) : hi;
      range.reverse = true;
    }
    const rows = ((await this.db.entries(range)).map(([, v]) => v) as Message[]).filter((m) => !hidden.has(m.id));
    const has_more = rows.length > size;
    const items = rows.slice(0, size);
    if (from.newer !== undefined) items.reverse();
    return { items, has_more };
  }
}
