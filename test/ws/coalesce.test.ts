import test from 'ava';
import { prompt, startEngine, turnEnded } from '../helpers/engine.ts';

// Streaming efficiency (issue 13 item 6): the first delta of a step leaves at once, later ones of the same agent
// are merged into one frame per ~16 ms window, on the legacy frames and on the transcript channel; offsets exact.

const CHUNKS = 300;
const words = Array.from({ length: CHUNKS }, (_, i) => ({ text: `w${i} ` }));
const answer = words.map((w) => w.text).join('');

test('a streamed answer reaches a subscriber in fewer frames than the model sent, with exact offsets, on both channels', async (t) => {
  const env = await startEngine(t);
  const v2 = await env.s.ws();
  t.teardown(() => v2.close());
  t.is((await v2.request('subscribe_v2', { session_id: env.sid, transcript: { main: 'delta' } })).code, 0);
  await v2.waitFor((f) => f.type === 'transcript.reset');
  env.llm.setScript({ events: words, delay_ms: 1 });
  await prompt(env, 'stream');
  await turnEnded(env, 1, 20_000);
  await v2.request('client_hello', { client_id: 'barrier' });

  const legacy = env.ws.frames.filter((f) => f.type === 'assistant.delta' && f.session_id === env.sid);
  t.is(legacy.map((f) => f.payload.text).join(''), answer, 'nothing lost, nothing doubled');
  t.true(legacy.length < CHUNKS / 3, `${legacy.length} frames for ${CHUNKS} deltas`);
  t.is(legacy[0].payload.text, words[0]!.text, 'the first delta leaves alone, at once');
  let at = 0;
  for (const f of legacy) {
    t.is(f.offset, at, 'frame offset = where its text starts');
    t.is(f.payload.offset, at);
    at += f.payload.text.length;
  }

  const ops = v2.frames.filter((f) => f.type === 'transcript.ops' && f.payload.volatile);
  const appends = ops.flatMap((f) => f.payload.ops).filter((o: any) => o.op === 'append');
  t.is(appends.map((o: any) => o.text).join(''), answer);
  t.true(ops.length < CHUNKS / 3, `${ops.length} delta batches`);
  at = 0;
  for (const o of appends) {
    t.is(o.offset, at);
    at += o.text.length;
  }
  const seqs = v2.frames.filter((f) => f.type === 'transcript.ops').map((f) => f.payload.seq);
  t.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => seqs[0] + i), 'one seq per batch, merged batches included');
});
