import test from 'ava';
import { TOOL_INPUT_CHARS_PER_MS } from '../../src/ws/transcript/pacing.ts';
import { deltaBatch, legacyDelta, spanMs, windowBound } from '../helpers/coalesce.ts';
import { prompt, startEngine, turnEnded } from '../helpers/engine.ts';

// Streaming efficiency (issue 13 item 6): the first delta of a step leaves at once, later ones of the same agent
// are merged into one frame per ~16 ms window, on the legacy frames and on the transcript channel; offsets exact.
// How many frames a stream makes depends on timing: the bounds follow the span of the frames (helpers/coalesce.ts).

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
  await turnEnded(env, 1, 30_000);
  await v2.request('client_hello', { client_id: 'barrier' });

  const legacy = env.ws.frames.filter((f) => f.type === 'assistant.delta' && f.session_id === env.sid);
  t.is(legacy.map((f) => f.payload.text).join(''), answer, 'nothing lost, nothing doubled');
  t.true(legacy.length <= windowBound(env.ws.frames, legacy, answer.length, legacyDelta), `${legacy.length} frames for ${CHUNKS} deltas over ${spanMs(legacy)} ms`);
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
  t.true(ops.length <= windowBound(v2.frames, ops, answer.length, deltaBatch), `${ops.length} delta batches over ${spanMs(ops)} ms`);
  at = 0;
  for (const o of appends) {
    t.is(o.offset, at);
    at += o.text.length;
  }
  const seqs = v2.frames.filter((f) => f.type === 'transcript.ops').map((f) => f.payload.seq);
  t.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => seqs[0] + i), 'one seq per batch, merged batches included');
});

// Issue 13 (session 6): a streamed tool call re-sent its whole input in a frame.upsert every window (quadratic:
// a large Write filled the 1 MiB op journal). The contract has no append for tool frames (spec/clients.md C), so
// the updates of one tool frame are spaced by its length (src/ws/transcript/pacing.ts TOOL_INPUT_CHARS_PER_MS).
test('a streamed tool call: its input re-sent at a bounded rate on the transcript channel, exact on the legacy frames', async (t) => {
  const env = await startEngine(t, { extraToml: 'default_permission_mode = "yolo"' });
  const v2 = await env.s.ws();
  t.teardown(() => v2.close());
  t.is((await v2.request('subscribe_v2', { session_id: env.sid, transcript: { main: 'delta' } })).code, 0);
  await v2.waitFor((f) => f.type === 'transcript.reset');
  const args = { file_path: 'big.txt', content: 'x'.repeat(60_000) };
  const argsText = JSON.stringify(args);
  env.llm.setScript({ events: [{ tool_call: { id: 'big1', name: 'Write', args, chunks: 600 } }], delay_ms: 1 }, { events: [{ text: 'done' }] });
  await prompt(env, 'write a big file');
  await turnEnded(env, 1, 30_000);
  await v2.request('client_hello', { client_id: 'barrier' });

  const legacy = env.ws.frames.filter((f) => f.type === 'tool.call.delta' && f.session_id === env.sid);
  t.is(legacy.map((f) => f.payload.delta).join(''), argsText, 'the legacy deltas carry the input exactly once');
  t.true(legacy.length <= windowBound(env.ws.frames, legacy, argsText.length, legacyDelta), `${legacy.length} legacy frames for 600 deltas over ${spanMs(legacy)} ms`);

  const deltaBatches = v2.frames.filter((f) => f.type === 'transcript.ops' && f.payload.volatile);
  const upserts = deltaBatches.flatMap((f) => f.payload.ops).filter((o: any) => o.op === 'frame.upsert' && o.frame.kind === 'tool');
  t.true(upserts.length >= 2, `${upserts.length} updates of the tool frame while it streamed`);
  const lengths = upserts.map((o: any) => o.frame.inputText.length);
  t.deepEqual(lengths, [...lengths].sort((a, b) => a - b), 'each update carries the input so far, growing');
  for (const o of upserts) t.true(argsText.startsWith(o.frame.inputText));
  const sent = deltaBatches.reduce((n, f) => n + JSON.stringify(f).length, 0);
  const resent = lengths.reduce((n: number, l: number) => n + l, 0);
  const span = spanMs(deltaBatches);
  t.log(`${upserts.length} tool frame updates, ${resent} characters of input in them, ${sent} bytes of delta batches over ${span} ms, ${legacy.length} legacy frames`);
  // Updates of one frame are spaced by its length / TOOL_INPUT_CHARS_PER_MS (at most TOOL_INPUT_MAX_MS, ~60 chars/ms
  // for this input): the input re-sent is bounded by the stream's span, however long the machine made it. Every
  // window (~16 ms) would re-send up to 60 KB each time, ~2,000 characters per ms.
  const bound = 2 * argsText.length + 2 * TOOL_INPUT_CHARS_PER_MS * span;
  t.true(resent <= bound, `${resent} characters of input re-sent over ${span} ms (bound ${bound})`);
  const final = v2.frames.filter((f) => f.type === 'transcript.ops' && !f.payload.volatile).flatMap((f) => f.payload.ops)
    .filter((o: any) => o.op === 'frame.upsert' && o.frame.toolCallId === 'big1').at(-1);
  t.is(final.frame.inputText, argsText, 'the durable update carries the whole input');
});
