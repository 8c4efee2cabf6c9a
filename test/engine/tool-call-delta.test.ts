import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { prompt, startEngine, turnEnded } from '../helpers/engine.ts';

test('tool.call.delta streams a call\'s arguments (contiguous offsets) before tool.call.started', async (t) => {
  const env = await startEngine(t, { extraToml: 'default_permission_mode = "yolo"' });
  const args = { file_path: 'notes/a-rather-long-file-name.txt', content: 'hello world '.repeat(20) };
  env.llm.setScript({ events: [{ tool_call: { id: 'w1', name: 'Write', args, chunks: 6 } }] }, scripts.helloText);
  await prompt(env, 'write it');
  await turnEnded(env);
  const deltas = env.ws.frames.filter((f) => f.type === 'tool.call.delta');
  t.true(deltas.length >= 2);
  let at = 0;
  for (const f of deltas) {
    t.like(f.payload, { agent_id: 'main', tool_call_id: 'w1', tool_name: 'Write', step: 1, offset: at });
    at += f.payload.delta.length;
  }
  t.deepEqual(JSON.parse(deltas.map((f) => f.payload.delta).join('')), args);
  const started = env.ws.frames.findIndex((f) => f.type === 'tool.call.started');
  t.true(started > env.ws.frames.indexOf(deltas.at(-1)));
});
