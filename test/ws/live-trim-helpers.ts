import type { StreamReply } from '../../fixtures/llm/index.ts';
import { prompt, turnEnded, type EngineEnv } from '../helpers/engine.ts';

// Shared by the live-trim tests (projections/transcript/live/ keeps the newest turns of a live fold; each test file sets
// SVC_CODE_LIVE_TURNS / SVC_CODE_LIVE_RETRIM_MS before its server starts).

export const reply = (text: string): StreamReply => ({ events: [{ text }], usage: { input: 10, output: 2 } });
export const live = (env: EngineEnv) => env.s.server.services.liveTranscripts;
/** Turns the live fold holds for the main agent, and how many it left out. */
export const held = (env: EngineEnv) => live(env).held(env.sid, 'main');
/** turn.ended frames of the session seen so far. */
export const ended = (env: EngineEnv) => env.ws.frames.filter((f) => f.type === 'turn.ended' && f.session_id === env.sid).length;
export const turnIds = (d: any): string[] => d.items.filter((i: any) => i.kind === 'turn').map((i: any) => i.turnId);
/** GET /transcript of the main agent, the envelope as answered. */
export const getTranscript = (env: EngineEnv, q: string) => env.s.get(`/api/v1/sessions/${env.sid}/transcript?agent_id=main&${q}`);
/** GET /transcript of the main agent, its data (throws on an error code). */
export async function page(env: EngineEnv, q: string): Promise<any> {
  const r = await getTranscript(env, q);
  if (r.code !== 0) throw new Error(JSON.stringify(r));
  return r.data;
}

/** Runs `n` prompts `question <from + i>` one after another, each to its turn's end. */
export async function turns(env: EngineEnv, from: number, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const before = ended(env);
    const r = await prompt(env, `question ${from + i}`);
    if (r.code !== 0) throw new Error(`prompt refused: ${JSON.stringify(r)}`);
    await turnEnded(env, before + 1);
  }
}
