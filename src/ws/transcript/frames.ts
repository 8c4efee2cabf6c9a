// Their schemas and types: protocol/ws/server-frames.ts.

/** Server frames of the transcript channel (`subscribe_v2`, docs/websocket.md "Transcript channel"; spec/clients.md A8, C). */

export function resetFrame(f: { sessionId: string; agentId: string; seq: number; snapshot: unknown; hasMoreOlder: boolean; now: Date }): string {
  const payload = { agent_id: f.agentId, seq: f.seq, snapshot: f.snapshot, has_more_older: f.hasMoreOlder, has_more: f.hasMoreOlder };
  return JSON.stringify({ type: 'transcript.reset', session_id: f.sessionId, timestamp: f.now.toISOString(), payload });
}

export function opsFrame(f: { sessionId: string; agentId: string; seq: number; volatile: boolean; ops: unknown[]; ts: string }): string {
  const payload: Record<string, unknown> = { agent_id: f.agentId, seq: f.seq };
  if (f.volatile) payload.volatile = true;
  payload.ops = f.ops;
  return JSON.stringify({ type: 'transcript.ops', session_id: f.sessionId, timestamp: f.ts, payload });
}
