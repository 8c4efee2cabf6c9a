import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { prompt, turnEnded } from '../helpers/engine.ts';
import { imagesIn } from '../helpers/images.ts';
import { startMcpEngine, stdioServer } from '../helpers/mcp.ts';

// MCP image results enter the model request through the same layer as every other image
// (docs/images.md): they are fitted to [image] max_edge_px and the provider's limits.

test('messages_api: a 4000x3000 MCP image result reaches the model at 2000x1500, inside the tool result', async (t) => {
  t.timeout(300_000, 'MCP children start slowly on a loaded machine');
  const env = await startMcpEngine(t, { fx: stdioServer() }, 'default_permission_mode = "yolo"', { wire: 'messages_api' });
  env.llm.setScript({ events: [{ tool_call: { id: 'i1', name: 'mcp__fx__image', args: { width: 4000, height: 3000 } } }] }, scripts.helloText);
  t.is((await prompt(env, 'show me')).code, 0);
  t.is((await turnEnded(env, 1, 120_000)).payload.reason, 'completed');
  t.deepEqual(env.llm.refusals, []);
  const body = env.llm.requests[1]!.body;
  const result = body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).find((c: any) => c.type === 'tool_result' && c.tool_use_id === 'i1');
  t.true(result.content.some((c: any) => c.type === 'image'), 'the image is part of the tool result');
  const sent = await imagesIn(body);
  t.is(sent.length, 1);
  t.like(sent[0], { width: 2000, height: 1500 });
});
