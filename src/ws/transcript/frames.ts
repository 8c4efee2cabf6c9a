/** Server frames of the transcript channel (`subscribe_v2`, docs/websocket.md "Transcript channel"; spec/clients.md A8, C); their schemas and types: protocol/ws/server-frames.ts. The ops frame's text is built by projections/transcript/live/op-log.ts opsFrame (the op journal keeps it). */

export function resetFrame(f: { sessionId: string; agentId: string; seq: number; snapshot: unknown; hasMoreOlder: boolean; now: Date }): string {
  const payload = { agent_id: f.agentId, seq: f.seq, snapshot: f.snapshot, has_more_older: f.hasMoreOlder, has_more: f.hasMoreOlder };
  return JSON.stringify({ type: 'transcript.reset', session_id: f.sessionId, timestamp: f.now.toISOString(), payload });
}
