import type pg from 'pg';
import { ChannelListener } from '../../journal/pg/listen.ts';
import type { VolatileBus } from '../events/volatile-bus.ts';
import type { Logger } from '../lib/logger.ts';
import type { PayloadOf, VolatileType } from '../../protocol/events/registry.ts';
import type { Peers } from './types.ts';

/** The NOTIFY channel of volatile frames between nodes (docs/scale-out.md "Streaming across nodes"). */
export const VOLATILE_CHANNEL = 'svc_code_volatile';

/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more: each message stays below this. */
const MAX_MESSAGE_BYTES = 7_600;
/** A streamed text longer than this (characters) is sent in pieces (4 bytes per character at worst). */
const PIECE_CHARS = 1_500;
/** Frames a session may hold while this node has not yet followed the commit they came after; older ones go. */
const HELD_MAX = 2_000;
const HELD_MS = 10_000;

/** One volatile publish as relayed: the session, the seq the sender's journal was at, the event, its offset. */
interface Frame { s: string; q: number; t: VolatileType; p: Record<string, unknown>; o?: number }
/** Frames (`f`), or a hello (`h`: the sender's LISTEN just came up) that only says the sender is alive. */
interface Message { n: string; f?: Frame[]; h?: true }

export interface RelayDeps {
  url: string;
  nodeId: string;
  bus: VolatileBus;
  /** The session's seq here: the sender's stamp is compared with it; `committed` tells when it moves. */
  journal: { headSeq(stream: string): number; on(ev: 'committed', fn: (events: Array<{ stream: string }>) => void): unknown; off(ev: 'committed', fn: (...a: any[]) => void): unknown };
  log: Logger;
  /** Whether another node is alive (src/nodes/directory.ts): nothing is sent while none is; told of each message heard. */
  peers: Peers;
}

/**
 * Streams a turn's volatile frames (text and thinking deltas, tool progress, task output) to the subscribers of the
 * other nodes (docs/scale-out.md "Streaming across nodes"). They are never journaled; the committed events that
 * replace them reach the other nodes through the journal follower. So a frame is delivered on a node only while
 * that node has followed exactly what the sender had when it published it (its journal seq for the session, the
 * frame's stamp): it waits while the node is behind, and is dropped once the node is past it (the step it belongs to
 * may be committed there already: a late delta would add its text a second time). Nothing is sent while no other
 * node is alive (a lone node pays no NOTIFY per batch); a node whose LISTEN comes up says hello, so the others start
 * sending at once instead of at their next heartbeat.
 */
export class VolatileRelay {
  private readonly listener: ChannelListener;
  private outbox: Frame[] = [];
  /** A flush is due at the end of this turn of the event loop. */
  private flushDue = false;
  /** Frames are on their way: what comes meanwhile waits for them, then goes as one batch. */
  private framesInFlight = false;
  private sending: Promise<void> = Promise.resolve();
  private delivering = false;
  private readonly held = new Map<string, Array<Frame & { at: number }>>();
  private readonly unsubscribe: () => void;

  constructor(private readonly deps: RelayDeps) {
    this.unsubscribe = deps.bus.subscribe(this.onLocal);
    deps.journal.on('committed', this.onCommitted);
    this.listener = new ChannelListener({
      url: deps.url, channel: VOLATILE_CHANNEL, name: 'volatile relay', applicationName: 'svc-code volatile relay', log: deps.log, onNotification: this.onNotification, onConnected: this.hello,
    });
  }

  private readonly onLocal = (sessionId: string, type: VolatileType, payload: unknown, offset?: number): void => {
    if (this.delivering || !this.listener.client || !this.deps.peers.othersAlive()) return;
    const frame: Frame = { s: sessionId, q: this.deps.journal.headSeq(sessionId), t: type, p: payload as Record<string, unknown>, ...(offset !== undefined ? { o: offset } : {}) };
    this.outbox.push(...pieces(frame));
    this.flushSoon();
  };

  /**
   * Frames go at the end of the event loop's turn that published them, or, while a batch is on its way, as soon as
   * it has gone (batched like a group commit, never on a timer): a frame must reach the other nodes before the commit
   * of its step does, or they drop it.
   */
  private flushSoon(): void {
    if (this.flushDue || this.framesInFlight) return;
    this.flushDue = true;
    setImmediate(() => this.flush());
  }

  /** Sends what waits, in messages under the size limit, one after another on the one connection (in order). */
  private flush(): void {
    this.flushDue = false;
    const client = this.listener.client;
    if (!client || !this.outbox.length) return;
    const frames = this.outbox.splice(0);
    this.framesInFlight = true;
    this.sending = this.sending.then(async () => {
      for (const text of messages(this.deps.nodeId, frames)) await client.query('SELECT pg_notify($1, $2)', [VOLATILE_CHANNEL, text]);
    }).catch((err: unknown) => this.deps.log.warn({ err }, 'volatile relay: sending failed (the frames are lost; the committed events follow)')).finally(() => {
      this.framesInFlight = false;
      if (this.outbox.length) this.flushSoon();
    });
  }

  /** Tells the other nodes this one listens now (at start, and after a lost connection came back). */
  private readonly hello = (): void => {
    const client = this.listener.client;
    if (!client) return;
    const text = JSON.stringify({ n: this.deps.nodeId, h: true } satisfies Message);
    this.sending = this.sending.then(async () => {
      await client.query('SELECT pg_notify($1, $2)', [VOLATILE_CHANNEL, text]);
    }).catch((err: unknown) => this.deps.log.warn({ err }, 'volatile relay: the hello failed (the others notice this node at their next heartbeat)'));
  };

  private readonly onNotification = (msg: pg.Notification): void => {
    if (msg.channel !== VOLATILE_CHANNEL || !msg.payload) return;
    let m: Message;
    try {
      m = JSON.parse(msg.payload) as Message;
    } catch {
      return;
    }
    if (typeof m.n !== 'string' || m.n === this.deps.nodeId) return;
    this.deps.peers.heardFromOther();
    if (!Array.isArray(m.f)) return;
    for (const f of m.f) this.receive(f);
  };

  private receive(f: Frame): void {
    const head = this.deps.journal.headSeq(f.s);
    if (f.q < head) return;
    if (f.q === head && !this.held.get(f.s)?.length) return this.deliver(f);
    // Behind the sender: held until the commit it follows arrives here (in order with what is held already).
    const list = this.held.get(f.s) ?? [];
    list.push({ ...f, at: Date.now() });
    if (list.length > HELD_MAX) list.shift();
    this.held.set(f.s, list);
  }

  private readonly onCommitted = (events: Array<{ stream: string }>): void => {
    // Every commit of this node and the followed ones pass here: nothing to do unless frames wait.
    if (!this.held.size) return;
    for (const stream of new Set(events.map((e) => e.stream))) {
      const list = this.held.get(stream);
      if (!list) continue;
      const head = this.deps.journal.headSeq(stream);
      const now = Date.now();
      const keep = list.filter((f) => f.q > head && now - f.at < HELD_MS);
      for (const f of list) if (f.q === head) this.deliver(f);
      if (keep.length) this.held.set(stream, keep);
      else this.held.delete(stream);
    }
  };

  private deliver(f: Frame): void {
    this.delivering = true;
    try {
      this.deps.bus.publish(f.s, f.t, f.p as PayloadOf<VolatileType>, f.o);
    } catch (err) {
      this.deps.log.warn({ err, session_id: f.s, type: f.t }, 'volatile relay: a relayed frame was refused');
    } finally {
      this.delivering = false;
    }
  }

  async stop(): Promise<void> {
    this.unsubscribe();
    this.deps.journal.off('committed', this.onCommitted);
    this.outbox = [];
    await this.sending;
    await this.listener.stop();
  }
}

/** The text field of a streamed frame, split when long (its offsets moved along): each piece fits in a message. */
function pieces(f: Frame): Frame[] {
  const field = f.t === 'tool.call.delta' ? 'delta' : f.t === 'shell.output' ? 'data' : 'text';
  const text = f.p[field];
  if (typeof text !== 'string' || text.length <= PIECE_CHARS) return [f];
  const out: Frame[] = [];
  for (let at = 0; at < text.length; at += PIECE_CHARS) {
    const p = { ...f.p, [field]: text.slice(at, at + PIECE_CHARS) };
    if (typeof f.p.offset === 'number') p.offset = f.p.offset + at;
    out.push({ ...f, p, ...(f.o !== undefined ? { o: f.o + at } : {}) });
  }
  return out;
}

/** The frames as NOTIFY payloads under the size limit, in order; a frame too large alone is left out. */
function messages(nodeId: string, frames: Frame[]): string[] {
  const out: string[] = [];
  let batch: string[] = [];
  let bytes = 0;
  const head = `{"n":${JSON.stringify(nodeId)},"f":[`;
  const close = () => {
    if (batch.length) out.push(`${head}${batch.join(',')}]}`);
    batch = [];
    bytes = Buffer.byteLength(head) + 2;
  };
  close();
  for (const f of frames) {
    const json = JSON.stringify(f);
    const size = Buffer.byteLength(json) + 1;
    if (size + Buffer.byteLength(head) + 2 > MAX_MESSAGE_BYTES) continue;
    if (bytes + size > MAX_MESSAGE_BYTES) close();
    batch.push(json);
    bytes += size;
  }
  close();
  return out;
}
