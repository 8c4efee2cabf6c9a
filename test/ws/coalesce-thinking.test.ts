import test from 'ava';
import { legacyDelta, spanMs, windowBound } from '../helpers/coalesce.ts';
import { prompt, startEngine, YOLO } from '../helpers/engine.ts';
import { agentCall, turnEnded, withSubLlm } from '../helpers/subagents.ts';
import type { WsClient } from '../helpers/server.ts';

// Issue 13 item 6 on the legacy `thinking.delta` frames (as test/ws/coalesce.test.ts does for assistant.delta): the
// first delta of a step leaves at once, later ones are merged per window with exact offsets; and deltas of two
// agents streaming at the same time are never merged into one frame (a sub-agent's text never shows in the main
// agent's frame, nor the other way round).

const CHUNKS = 300;
const parts = (tag: string, n = CHUNKS) => Array.from({ length: n }, (_, i) => `${tag}${i} `);

/** The legacy delta frames of `type` for the session on `ws`, in order. */
function deltas(ws: WsClient, sid: string, type: string) {
  return ws.frames.filter((f) => f.type === type && f.session_id === sid);
}

test('thinking.delta: first delta at once, later ones merged per window, offsets exact', async (t) => {
  const env = await startEngine(t);
  const thinking = parts('t');
  env.llm.setScript({ events: [...thinking.map((x) => ({ thinking: x })), { text: 'answer' }], delay_ms: 1 });
  t.is((await prompt(env, 'think hard')).code, 0);
  await turnEnded(env, 1);
  await env.ws.request('client_hello', { client_id: 'barrier' });
  const frames = deltas(env.ws, env.sid, 'thinking.delta');
  t.is(frames.map((f) => f.payload.text).join(''), thinking.join(''), 'nothing lost, nothing doubled');
  t.is(frames[0].payload.text, thinking[0], 'the first delta leaves alone, at once');
  t.true(frames.length <= windowBound(env.ws.frames, frames, thinking.join('').length, legacyDelta), `${frames.length} frames for ${CHUNKS} deltas over ${spanMs(frames)} ms`);
  let at = 0;
  for (const f of frames) {
    t.is(f.offset, at, 'frame offset = where its text starts');
    t.is(f.payload.offset, at);
    t.is(f.payload.agentId, 'main');
    at += f.payload.text.length;
  }
  t.is(deltas(env.ws, env.sid, 'assistant.delta').map((f) => f.payload.text).join(''), 'answer');
});

test('a sub-agent and the main agent streaming at once: each frame carries one agent\'s text, each agent\'s text exact', async (t) => {
  const { env, sub } = await withSubLlm(t, '', YOLO);
  const mainThinking = parts('m');
  const mainText = parts('M');
  const subThinking = parts('s');
  const subText = parts('S');
  // Main: spawns a background sub-agent, then streams while the sub-agent streams on its own fixture.
  env.llm.setScript(
    agentCall('c1', { description: 'bg stream', prompt: 'stream too', run_in_background: true }),
    { events: [...mainThinking.map((x) => ({ thinking: x })), ...mainText.map((text) => ({ text }))], delay_ms: 2 },
    { events: [{ text: 'noted' }] },
  );
  sub.setScript({ events: [...subThinking.map((x) => ({ thinking: x })), ...subText.map((text) => ({ text }))], delay_ms: 2 });
  t.is((await prompt(env, 'stream with a helper')).code, 0);
  await turnEnded(env, 1);
  const spawned = await env.ws.waitFor((f) => f.type === 'subagent.spawned');
  const subAgent = spawned.payload.agent_id;
  await env.ws.waitFor((f) => f.type === 'turn.ended' && f.payload.agent_id === subAgent, 30_000);
  await env.ws.request('client_hello', { client_id: 'barrier' });
  const mainTurn = env.ws.frames.find((f) => f.type === 'turn.started' && f.payload.agent_id === 'main').payload.turn_id;

  for (const type of ['thinking.delta', 'assistant.delta']) {
    const frames = deltas(env.ws, env.sid, type);
    const expect = type === 'thinking.delta' ? { main: mainThinking, sub: subThinking } : { main: mainText, sub: subText };
    const mainFrames = frames.filter((f) => f.payload.agent_id === 'main' && f.payload.turn_id === mainTurn);
    const subFrames = frames.filter((f) => f.payload.agent_id === subAgent);
    // Each agent's text exact, in order, offsets contiguous, on frames naming that agent.
    for (const [agent, mine, want] of [['main', mainFrames, expect.main], [subAgent, subFrames, expect.sub]] as const) {
      t.log(`${type} ${agent}: ${mine.length} frames for ${want.length} deltas over ${spanMs(mine)} ms`);
      t.is(mine.map((f) => f.payload.text).join(''), want.join(''), `${type} ${agent}`);
      t.true(mine.length <= windowBound(env.ws.frames, mine, want.join('').length, legacyDelta), `${type} ${agent}: ${mine.length} frames for ${CHUNKS} deltas over ${spanMs(mine)} ms`);
      let at = 0;
      for (const f of mine) {
        t.is(f.payload.offset, at);
        t.is(f.payload.agentId, agent);
        at += f.payload.text.length;
      }
    }
    // Every delta frame of the session is one of the two agents' (none lost to another key or merged across them).
    t.is(mainFrames.length + subFrames.length, frames.length);
  }
  // The two streams did overlap (otherwise this proves nothing): a sub-agent frame between two main frames.
  const order = env.ws.frames.filter((f) => (f.type === 'thinking.delta' || f.type === 'assistant.delta') && f.session_id === env.sid).map((f) => f.payload.agent_id);
  const firstMain = order.indexOf('main');
  const lastMain = order.lastIndexOf('main');
  t.true(order.slice(firstMain, lastMain).includes(subAgent), 'the streams interleaved');
});
