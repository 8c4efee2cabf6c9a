import http from 'node:http';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { scripts, startFixtureLlm, type FixtureLlm, type StreamReply } from '../../fixtures/llm/index.ts';
import { startDaemon, type Daemon } from './daemon.ts';
import { ApiClient } from './http.ts';
import { startInProcessLlm, startRemoteLlm, type RemoteLlm } from './fixture-remote.ts';
import type { Scope } from './lifecycle.ts';
import type { BenchWs } from './ws-client.ts';

export const MODEL = 'fx/model';

/** config.toml with one chat_compat provider aimed at the fixture LLM (the shape test/helpers/engine.ts uses). */
export function engineConfig(llmUrl: string): string {
  // Auto titles would take fixture replies meant for the turns (and add work to the measured turn).
  return `default_model = "${MODEL}"
auto_session_title = false

[providers.fx]
type = "chat_compat"
base_url = "${llmUrl}/v1"
api_key = "sk-bench"

[models."${MODEL}"]
provider = "fx"
model = "fixture-model"
max_context_size = 1000000
`;
}

export interface EngineDaemon {
  llm: FixtureLlm;
  daemon: Daemon;
  client: ApiClient;
  home: string;
}

/** The fixture LLM in this process and a spawned daemon whose temp home points at it; all stopped with the scope. */
export async function startEngineDaemon(scope: Scope, prefix: string): Promise<EngineDaemon> {
  const llm = await startFixtureLlm();
  scope.defer(() => llm.close());
  const home = await scope.tempDir(prefix);
  await writeFile(path.join(home, 'config.toml'), engineConfig(llm.url));
  const daemon = await startDaemon(scope, home);
  const client = new ApiClient(daemon.baseUrl);
  scope.defer(() => client.close());
  return { llm, daemon, client, home };
}

/** The same, with the fixture LLM in a process of its own (bench/lib/fixture-child.ts), as a remote provider is; `inProcess` for the old way. */
export async function startRemoteEngineDaemon(scope: Scope, prefix: string, inProcess = false): Promise<{ llm: RemoteLlm; daemon: Daemon; client: ApiClient }> {
  const llm = await (inProcess ? startInProcessLlm(scope) : startRemoteLlm(scope));
  const home = await scope.tempDir(prefix);
  await writeFile(path.join(home, 'config.toml'), engineConfig(llm.url));
  const daemon = await startDaemon(scope, home);
  const client = new ApiClient(daemon.baseUrl);
  scope.defer(() => client.close());
  return { llm, daemon, client };
}

/**
 * The text of `scripts.longAnswer(tokens)` (one "wN " word per token) grouped into `chunks`
 * SSE frames, `delayMs` apart: a paced stream like a real provider's, not one frame per token.
 */
export function chunkedAnswer(tokens: number, chunks: number, delayMs: number): StreamReply {
  const words = scripts.longAnswer(tokens).events.map((e) => ('text' in e ? e.text : ''));
  const per = Math.ceil(tokens / chunks);
  const events = [];
  for (let i = 0; i < words.length; i += per) events.push({ text: words.slice(i, i + per).join('') });
  return { events, delay_ms: delayMs, usage: { input: 50, output: tokens } };
}

export function answerText(reply: StreamReply): string {
  return reply.events.map((e) => ('text' in e ? e.text : '')).join('');
}

export interface Timing {
  first_ms: number;
  last_ms: number;
}

/** A timed daemon turn: also ms to the POST answer and to the model request reaching the fixture. */
export interface TurnTiming extends Timing {
  post_ms: number;
  request_ms: number;
  chars: number;
  /** The prompt's text and when it was posted (epoch ms), to match the model request's arrival later. */
  text: string;
  sent_at: number;
}

/**
 * Streams one chat completion straight from the fixture (no daemon): ms to the first frame with
 * text content, and to the end of the stream. Keep-alive agent, as the daemon's provider client has.
 */
export function directStream(agent: http.Agent, llmUrl: string, timeoutMs = 30_000): Promise<Timing> {
  const body = Buffer.from(JSON.stringify({ model: 'fixture-model', stream: true, messages: [{ role: 'user', content: 'bench' }] }));
  const url = new URL(`${llmUrl}/v1/chat/completions`);
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let first = NaN;
    const req = http.request({
      host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, timeout: timeoutMs,
      headers: { 'content-type': 'application/json', 'content-length': body.length, authorization: 'Bearer sk-bench' },
    }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`fixture answered ${res.statusCode}`));
      res.setEncoding('utf8');
      // The role frame carries `"content":""`; the first text frame is the first non-empty content.
      res.on('data', (d: string) => {
        if (Number.isNaN(first) && /"content":"[^"]/.test(d)) first = performance.now() - t0;
      });
      res.on('end', () => resolve({ first_ms: first, last_ms: performance.now() - t0 }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`direct stream timed out after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

interface Pending {
  t0: number;
  post: number;
  first: number;
  chars: number;
  timer: NodeJS.Timeout;
  resolve: (t: TurnTiming) => void;
  reject: (e: Error) => void;
}

/**
 * Times prompts on sessions of one WS connection subscribed to them: POST -> first
 * `assistant.delta` frame of the session, and POST -> its `turn.ended` (reason completed).
 */
export class TurnTimer {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly ws: BenchWs, private readonly client: ApiClient, private readonly arrivals = new Map<string, number>()) {
    ws.onFrame = (f) => this.onFrame(f);
  }

  async subscribe(ids: string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 500) {
      const ack = await this.ws.request('subscribe', { session_ids: ids.slice(i, i + 500) });
      if (ack.code !== 0) throw new Error(`subscribe refused: ${JSON.stringify(ack).slice(0, 300)}`);
    }
  }

  /** Posts one prompt and resolves when its turn has ended. */
  async prompt(sid: string, text: string, timeoutMs = 30_000): Promise<TurnTiming> {
    if (this.pending.has(sid)) throw new Error(`session ${sid} already has a timed prompt`);
    const done = new Promise<TurnTiming>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(sid);
        reject(new Error(`no turn.ended on ${sid} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(sid, { t0: performance.now(), post: NaN, first: NaN, chars: 0, timer, resolve, reject });
    });
    const p = this.pending.get(sid)!;
    let r;
    try {
      r = await this.client.request('POST', `/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text }] });
    } catch (err) {
      this.settle(sid, err as Error);
      return done;
    }
    p.post = performance.now() - p.t0;
    if (r.status !== 200 || r.body?.code !== 0) {
      this.settle(sid, new Error(`prompt refused: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`));
    }
    const t = await done;
    return {
      first_ms: t.first_ms, last_ms: t.last_ms, chars: t.chars, post_ms: p.post, request_ms: (this.arrivals.get(text) ?? NaN) - p.t0,
      text, sent_at: performance.timeOrigin + p.t0,
    };
  }

  private onFrame(f: any): void {
    const p = this.pending.get(f.session_id);
    if (!p) return;
    if (f.type === 'assistant.delta') {
      if (Number.isNaN(p.first)) p.first = performance.now() - p.t0;
      p.chars += f.payload.text.length;
    } else if (f.type === 'turn.ended') {
      const last = performance.now() - p.t0;
      if (f.payload.reason !== 'completed') return this.settle(f.session_id, new Error(`turn ended ${JSON.stringify(f.payload).slice(0, 300)}`));
      this.settle(f.session_id, undefined, { first_ms: p.first, last_ms: last, chars: p.chars, post_ms: NaN, request_ms: NaN, text: '', sent_at: NaN });
    }
  }

  private settle(sid: string, err?: Error, t?: TurnTiming): void {
    const p = this.pending.get(sid);
    if (!p) return;
    this.pending.delete(sid);
    clearTimeout(p.timer);
    if (err) p.reject(err);
    else p.resolve(t!);
  }
}

export async function createSessions(client: ApiClient, cwd: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await client.ok('POST', '/api/v1/sessions', { metadata: { cwd }, title: `engine bench ${i}` })).id);
  return ids;
}
