// The open session's live transcript and the one WebSocket: the REST baseline, subscribe_v2, the frames applied
// (spec/clients.md B, C), older pages, and the broadcast frames handed to the sidebar.
import { useMemo, useRef, useState } from 'preact/hooks';
import type { PayloadOf } from '../../protocol/events/registry.ts';
import type { TranscriptOpsFrame, TranscriptResetFrame } from '../../protocol/ws/server-frames.ts';
import { api, Socket, type Frame } from './api.ts';
import { isListEvent, isWorkEvent } from './frames.ts';
import { rememberFirstPrompt } from './sidebar/titles.ts';
import { applyOps, fromSnapshot, Gap, mergeOlder, rebase, type Transcript, type Turn } from './transcript.ts';

type Held = { sid: string; t: Transcript };
type WorkPayload = PayloadOf<'event.session.status_changed'> | PayloadOf<'event.session.work_changed'>;

/** What the feed tells its owner: connection state, a session's work change, a change of the list. */
export interface FeedHooks {
  onOpen(): void;
  onState(connected: boolean): void;
  onWork(sessionId: string, p: WorkPayload): void;
  onListChanged(): void;
}

/**
 * Applies a transcript frame of the held session to it: `reload` when the client must read the transcript again
 * (a batch seq that is not watermark+1, an ops gap, an empty reset over turns held), `changed`, or `ignored`.
 */
function applyTranscriptFrame(cur: Held, f: TranscriptResetFrame | TranscriptOpsFrame): { t: Transcript; result: 'reload' | 'changed' | 'ignored' } {
  const ignored = { t: cur.t, result: 'ignored' as const };
  if (f.session_id !== cur.sid || f.payload.agent_id !== 'main') return ignored;
  if (f.type === 'transcript.reset') {
    const p = f.payload;
    if (!p.snapshot?.items?.length && cur.t.items.length) return { t: cur.t, result: 'reload' };
    return { t: rebase(cur.t, fromSnapshot(p.snapshot, p.seq, !!p.has_more_older)), result: 'changed' };
  }
  const p = f.payload;
  if (typeof p.seq === 'number' && cur.t.seq !== undefined) {
    if (p.seq <= cur.t.seq) return ignored;
    if (p.seq !== cur.t.seq + 1) return { t: cur.t, result: 'reload' };
  }
  try {
    applyOps(cur.t, p.ops ?? []);
    if (typeof p.seq === 'number') cur.t.seq = p.seq;
  } catch (e) {
    if (e instanceof Gap) return { t: cur.t, result: 'reload' };
    throw e;
  }
  return { t: cur.t, result: 'changed' };
}

/** The open session's transcript (null while it loads) and the socket; `hooks` are read from the first render. */
export function useFeed(active: string | null, hooks: FeedHooks) {
  const [, setVersion] = useState(0);
  const tr = useRef<Held | null>(null);
  const activeRef = useRef(active);
  activeRef.current = active;
  const rerender = () => setVersion((v) => v + 1);

  /** The first prompt of a transcript that holds its first turn: the session's name until it has a title. */
  const noteFirstPrompt = (sid: string, t: Transcript) => {
    if (t.hasMoreOlder) return;
    const first = t.items.find((i): i is Turn => i.kind === 'turn');
    if (first?.prompt && rememberFirstPrompt(sid, first.prompt, true)) rerender();
  };

  const reload = async (sid: string) => {
    const data = await api('GET', `/api/v1/sessions/${sid}/transcript?agent_id=main&page_size=50`);
    if (activeRef.current !== sid) return;
    tr.current = { sid, t: fromSnapshot(data, data.seq, data.has_more) };
    noteFirstPrompt(sid, tr.current.t);
    rerender();
    subscribe(sid);
  };

  /** The page of turns before the oldest one held (clients.md B7: before_turn). */
  const loadOlder = async (sid: string) => {
    const cur = tr.current;
    const first = cur?.t.items.find((i) => i.kind === 'turn') as Turn | undefined;
    if (!cur || cur.sid !== sid || !first) return;
    const data = await api('GET', `/api/v1/sessions/${sid}/transcript?agent_id=main&page_size=50&before_turn=${encodeURIComponent(first.turnId)}`);
    if (tr.current !== cur) return;
    mergeOlder(cur.t, fromSnapshot(data, cur.t.seq, data.has_more));
    noteFirstPrompt(sid, cur.t);
    rerender();
  };

  const socket = useMemo(() => new Socket((f) => onFrame(f), () => {
    hooks.onOpen();
    void socket.request('client_hello', { client_id: 'web_ui' });
    if (activeRef.current) subscribe(activeRef.current);
  }, (on) => hooks.onState(on)), []);

  const subscribe = (sid: string) => {
    if (!socket.connected) return;
    const seq = tr.current?.sid === sid ? tr.current.t.seq : undefined;
    // Written field by field (no spread): a field the server's schema renames fails the web build here.
    void socket.request('subscribe_v2', { session_id: sid, transcript: { main: 'delta' }, transcript_since: seq !== undefined ? { main: seq } : undefined });
  };

  const onFrame = (f: Frame) => {
    // Every session's busy / approval / question changes come to every connection: the row's badge is set
    // from the frame (a list read happens only on other session events and after a reconnect).
    if (isWorkEvent(f)) return hooks.onWork(f.payload.session_id ?? f.session_id, f.payload);
    if (f.type === 'transcript.reset' || f.type === 'transcript.ops') {
      const cur = tr.current;
      if (!cur) return;
      const { t, result } = applyTranscriptFrame(cur, f);
      cur.t = t;
      if (result === 'reload') return void reload(cur.sid);
      if (result === 'ignored') return;
      if (f.type === 'transcript.ops') noteFirstPrompt(cur.sid, cur.t);
      return rerender();
    }
    if (isListEvent(f)) hooks.onListChanged();
  };

  /** Drops what was held (another session opened). */
  const clear = () => {
    tr.current = null;
    rerender();
  };

  const t = tr.current?.sid === active ? tr.current.t : null;
  const leave = (sid: string) => {
    if (tr.current && tr.current.sid !== sid) socket.send('unsubscribe_v2', { session_id: tr.current.sid });
  };
  return { socket, t, clear, reload, loadOlder, leave };
}
