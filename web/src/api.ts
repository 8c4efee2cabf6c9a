// REST and WebSocket access to the daemon (same origin). The token comes from the URL fragment
// (#token=...), is removed from the address bar and kept in localStorage for later visits.
import type { AckFrame, ServerFrame } from '../../protocol/ws/server-frames.ts';
import type { ClientFramePayload, ClientFrameType } from '../../protocol/ws/client-frames.ts';

const TOKEN_KEY = 'svc-code.token';

export class ApiError extends Error {
  constructor(readonly code: number, message: string, readonly status: number, readonly request = '') {
    super(message);
  }
}

/** A request that never got an answer (the daemon is down, or the network is): fetch's TypeError, wrapped. */
export class NetworkError extends Error {
  constructor(readonly request: string, cause: unknown) {
    super(`no answer: ${(cause as Error)?.message ?? String(cause)}`);
  }
}

/** An error said for a person: what went wrong in words, and the details (code, status, request) on demand. */
export interface Problem { message: string; details: string }

/** `doing` is what was tried, as it reads after "Couldn't": "send your message", "archive the session". */
export function problemOf(e: unknown, doing?: string): Problem {
  const lead = doing ? `Couldn't ${doing}. ` : '';
  if (e instanceof NetworkError) return { message: `${lead}The daemon can't be reached: is it still running, and is this machine online?`, details: `${e.request}: ${e.message}` };
  if (e instanceof ApiError) {
    const details = [e.code > 0 ? `code ${e.code}` : '', e.status ? `HTTP ${e.status}` : '', e.request, e.message].filter(Boolean).join(' · ');
    if (e.code === 40101) return { message: `${lead}The access token was not accepted.`, details };
    if (e.status >= 500 || Math.floor(e.code / 10000) === 5) return { message: `${lead}The daemon ran into an internal error; trying again may work.`, details };
    if (e.code === -1) return { message: `${lead}The daemon sent an answer this page doesn't understand.`, details };
    return { message: `${lead}${sentence(e.message)}`, details };
  }
  const msg = (e as Error)?.message ?? String(e);
  return { message: `${lead}${sentence(msg)}`, details: msg };
}

const sentence = (s: string) => { const t = s.trim(); return t ? `${t[0]!.toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}` : 'Something went wrong.'; };

/** Takes `#token=` from the address bar (then removes it), else the stored token. */
export function initialToken(): string | null {
  const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (m) {
    const token = decodeURIComponent(m[1]!);
    localStorage.setItem(TOKEN_KEY, token);
    history.replaceState(history.state, '', location.pathname + location.search);
    return token;
  }
  return localStorage.getItem(TOKEN_KEY);
}

export function storeToken(token: string | null): void {
  if (token) localStorage.setItem(TOKEN_KEY, token);
  else localStorage.removeItem(TOKEN_KEY);
}

let token: string | null = null;
let onUnauthorized: () => void = () => {};

export function setToken(t: string | null): void {
  token = t;
}
export function getToken(): string | null {
  return token;
}
export function whenUnauthorized(fn: () => void): void {
  onUnauthorized = fn;
}

export async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  const sentWith = token;
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const request = `${method} ${path.replace(/\?.*/, '')}`;
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw new NetworkError(request, e);
  }
  let env: { code?: number; msg?: string; data?: T };
  try {
    env = await res.json();
  } catch {
    throw new ApiError(-1, `HTTP ${res.status}`, res.status, request);
  }
  if (res.status === 401 || env.code === 40101) {
    // A request sent with a token since replaced (answered after the user gave the right one) says nothing.
    if (sentWith === token) onUnauthorized();
    throw new ApiError(40101, env.msg ?? 'unauthorized', 401, request);
  }
  // 40903 / 40909 are successes for abort and dismiss (clients.md D2).
  if (env.code !== 0 && env.code !== 40903 && env.code !== 40909) throw new ApiError(env.code ?? -1, env.msg ?? `HTTP ${res.status}`, res.status, request);
  return env.data as T;
}

/** A server frame, typed from protocol/ (the event registry's names and payloads, the transcript and terminal frames). */
export type Frame = ServerFrame;

/**
 * One WebSocket with reconnect (1 s·2^n up to 30 s, clients.md A4). `onOpen` runs after each
 * server_hello, so the owner re-subscribes with its cursors after a reconnect.
 */
export class Socket {
  private ws: WebSocket | null = null;
  private attempt = 0;
  private n = 0;
  private closed = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private waiting = new Map<string, (f: AckFrame) => void>();
  /** The panels listening while mounted (terminal output, tasks), beside the owner's `onFrame`. */
  private listeners = new Set<(f: Frame) => void>();
  connected = false;

  constructor(private onFrame: (f: Frame) => void, private onOpen: () => void, private onState: (connected: boolean) => void) {}

  start(): void {
    this.closed = false;
    this.connect();
  }

  /** Reconnects now instead of at the end of the back-off (the browser said it is online, or a person asked). */
  retryNow(): void {
    if (this.closed || this.connected) return;
    clearTimeout(this.timer);
    this.attempt = 0;
    const old = this.ws;
    this.ws = null;
    old?.close();
    this.connect();
  }

  private connect(): void {
    if (this.closed) return;
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/v1/ws`;
    const ws = new WebSocket(url, token ? [`svc-code.bearer.${token}`] : []);
    this.ws = ws;
    ws.onmessage = (e) => {
      let f: Frame;
      try {
        f = JSON.parse(String(e.data));
      } catch {
        return;
      }
      if (f.type === 'server_hello') {
        this.attempt = 0;
        this.connected = true;
        this.onState(true);
        this.onOpen();
        return;
      }
      if (f.type === 'ack' && typeof f.id === 'string' && this.waiting.has(f.id)) {
        this.waiting.get(f.id)!(f);
        this.waiting.delete(f.id);
        return;
      }
      for (const fn of this.listeners) {
        try {
          fn(f);
        } catch (err) {
          console.error('frame listener failed', err); // one panel's fault must not cost the app the frame
        }
      }
      this.onFrame(f);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.connected = false;
      this.onState(false);
      if (this.closed) return;
      const delay = Math.min(30_000, 1000 * 2 ** this.attempt++) + Math.random() * 250;
      this.timer = setTimeout(() => this.connect(), delay);
    };
  }

  /** Every server frame (acks, pings and hellos aside) also goes to `fn` until the returned function is called. */
  listen(fn: (f: Frame) => void): () => void {
    this.listeners.add(fn);
    return () => void this.listeners.delete(fn);
  }

  /** Sends a request frame, typed by the server's schema of that frame (protocol/ws/client-frames.ts); resolves with its ack. */
  request<K extends ClientFrameType>(type: K, payload: ClientFramePayload[K]): Promise<AckFrame> {
    const id = `c_${++this.n}`;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ type, id, payload }));
    });
  }

  /** Sends a frame whose ack is not awaited. */
  send<K extends ClientFrameType>(type: K, payload: ClientFramePayload[K]): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ type, payload }));
  }

  /** Closes the socket as a network drop would: it reconnects. */
  drop(): void {
    this.ws?.close();
  }

  stop(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.ws?.close();
  }
}
