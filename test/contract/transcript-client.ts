import type { ExecutionContext } from 'ava';
import { startEngine, type EngineEnv } from '../helpers/engine.ts';
import type { TestServer, WsClient } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';
import { ReferenceTranscript, restView } from './reference-reducer.ts';
import { assertContract, OpsFrame, ResetFrame, TranscriptResponse } from './transcript-schemas.ts';

// A web client of the transcript as spec/clients.md A8 describes it: the REST baseline, subscribe_v2 with
// transcript_since, every batch applied by the reference store; each response and frame checked against the contract.

export interface TranscriptClient { ws: WsClient; store: ReferenceTranscript; next: number; agentId: string }

export async function restTranscript(s: TestServer, sid: string, agentId = 'main') {
  const r = await s.get(`/api/v1/sessions/${sid}/transcript?agent_id=${agentId}&page_size=100`);
  if (r.code !== 0) throw new Error(JSON.stringify(r));
  assertContract(TranscriptResponse, r.data, 'GET /transcript');
  return r.data;
}

export async function connectClient(s: TestServer, sid: string, agentId = 'main'): Promise<TranscriptClient> {
  const ws = await s.ws();
  const store = new ReferenceTranscript();
  const d = await restTranscript(s, sid, agentId);
  store.load(d, d.seq);
  const ack = await ws.request('subscribe_v2', { session_id: sid, transcript: { [agentId]: 'delta' }, transcript_since: { [agentId]: d.seq } });
  if (ack.code !== 0) throw new Error(JSON.stringify(ack));
  return { ws, store, next: 0, agentId };
}

/** A fixture reply that calls one tool. */
export const toolCall = (id: string, name: string, args: unknown) => ({ events: [{ tool_call: { id, name, args } }] });

/** The tool frame of a call in a transcript (REST shape), wherever its turn and step. */
export const toolFrameOf = (d: any, id: string) => d.items.flatMap((i: any) => i.steps ?? []).flatMap((st: any) => st.frames).find((f: any) => f.toolCallId === id);

/** An engine with a contract client of its session's main transcript, closed at the end of the test. */
export async function watchedEngine(t: ExecutionContext, opts: Parameters<typeof startEngine>[1] = {}): Promise<EngineEnv & { c: TranscriptClient }> {
  const env = await startEngine(t, opts);
  const c = await connectClient(env.s, env.sid);
  t.teardown(() => c.ws.close());
  return { ...env, c };
}

/** The ops of the agent received so far, in order (each frame validated). */
export function opsOf(c: TranscriptClient): any[] {
  return c.ws.frames.filter((f) => f.type === 'transcript.ops' && f.payload.agent_id === c.agentId).flatMap((f) => {
    assertContract(OpsFrame, f, 'transcript.ops');
    return f.payload.ops;
  });
}

function pump(c: TranscriptClient): void {
  for (; c.next < c.ws.frames.length; c.next++) {
    const f = c.ws.frames[c.next];
    if (f.type !== 'transcript.reset' && f.type !== 'transcript.ops') continue;
    assertContract(f.type === 'transcript.reset' ? ResetFrame : OpsFrame, f, f.type);
    if (f.payload.agent_id === c.agentId) c.store.frame(f);
  }
}

/** Waits until the store caught up with GET /transcript's seq, asserts both agree, and returns the REST data. */
export async function sameAsRest(t: ExecutionContext, c: TranscriptClient, s: TestServer, sid: string, step: string): Promise<any> {
  let d: any;
  await until(async () => {
    pump(c);
    d = await restTranscript(s, sid, c.agentId);
    return d.seq !== undefined && c.store.watermark === d.seq;
  }, 30_000);
  t.deepEqual(c.store.view(), restView(d), step);
  return d;
}

/** The session is idle and its transcript says so. */
export const transcriptIdle = (s: TestServer, sid: string, agentId = 'main') => until(async () => {
  const st = (await s.get(`/api/v1/sessions/${sid}/status`)).data;
  const d = await restTranscript(s, sid, agentId);
  return (!st.busy && d.meta.activity === 'idle') || undefined;
}, 30_000);
