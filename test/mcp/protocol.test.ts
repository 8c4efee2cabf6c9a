import { readFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { WAV_SILENCE } from '../../fixtures/mcp/servers.mjs';
import { journal, prompt, turnEnded, YOLO, type EngineEnv } from '../helpers/engine.ts';
import { serverStatus, startMcpEngine, stdioServer } from '../helpers/mcp.ts';

// Protocol behaviours scripted with the SDK fixture server (fixtures/mcp/servers.mjs).

const call = (id: string, name: string, args: unknown = {}) => ({ tool_call: { id, name, args } });
const step = (...calls: Array<ReturnType<typeof call>>) => ({ events: calls });
const resultOf = async (env: EngineEnv, id: string) => (await journal(env)).find((e) => e.type === 'tool.result' && e.payload.tool_call_id === id)?.payload;
const offered = (env: EngineEnv, n: number): string[] => env.llm.requests[n]!.body.tools.map((x: any) => x.function.name);

test('tool names over 64 characters are cut with a stable hash suffix, keep the mcp__<server>__ prefix, and map back to the server\'s tool', async (t) => {
  t.timeout(300_000);
  const server = `team-tools-${'x'.repeat(37)}`; // 48 characters: the longest whose prefix is kept whole
  const env = await startMcpEngine(t, { [server]: stdioServer() }, YOLO);
  env.llm.setScript(step(), scripts.helloText);
  t.is((await prompt(env, 'list')).code, 0);
  t.is((await turnEnded(env, 1, 120_000)).payload.reason, 'completed');
  const names = offered(env, 0).filter((n) => n.startsWith('mcp__'));
  t.true(names.length >= 10);
  t.true(names.every((n) => n.length <= 64 && n.startsWith(`mcp__${server}__`)), names.join('\n'));
  // `structured` makes 65 characters: cut to the prefix and a hash of the full name.
  const cut = names.filter((n) => /_[0-9a-f]{8}$/.test(n));
  t.deepEqual(cut.map((n) => n.length), [64]);
  t.true(names.includes(`mcp__${server}__echo`), 'names that fit stay as they are');
  env.llm.setScript(step(call('s1', cut[0]!)), scripts.helloText);
  t.is((await prompt(env, 'call it')).code, 0);
  t.is((await turnEnded(env, 2, 120_000)).payload.reason, 'completed');
  t.like(await resultOf(env, 's1'), { is_error: false, content: '{"answer":42}' }, 'the cut name runs the server\'s structured tool');
  t.deepEqual(offered(env, 1).filter((n) => n.startsWith('mcp__')), names, 'the same names on the next request');
});

test('tools/list_changed: a tool the server adds is offered on the next model request', async (t) => {
  t.timeout(300_000);
  const env = await startMcpEngine(t, { fx: stdioServer() }, YOLO);
  env.llm.setScript(step(call('g1', 'mcp__fx__grow', { name: 'fresh' })), step(call('f1', 'mcp__fx__fresh')), scripts.helloText);
  t.is((await prompt(env, 'grow')).code, 0);
  t.is((await turnEnded(env, 1, 120_000)).payload.reason, 'completed');
  t.false(offered(env, 0).includes('mcp__fx__fresh'));
  t.true(offered(env, 1).includes('mcp__fx__fresh'));
  t.like(await resultOf(env, 'f1'), { is_error: false, content: 'fresh ran' });
});

test('a task-required tool of a server that declares no tasks capability is not offered; a call of its name reaches no server', async (t) => {
  t.timeout(300_000);
  const env = await startMcpEngine(t, { fx: stdioServer() }, YOLO);
  env.llm.setScript(step(call('j1', 'mcp__fx__job')), scripts.helloText);
  t.is((await prompt(env, 'job')).code, 0);
  t.is((await turnEnded(env, 1, 120_000)).payload.reason, 'completed');
  t.true(offered(env, 0).includes('mcp__fx__echo'));
  t.false(offered(env, 0).includes('mcp__fx__job'), 'the server could only refuse a plain call (-32600 from the issue)');
  t.like(await resultOf(env, 'j1'), { is_error: true, content: 'tool not available: mcp__fx__job' });
  const listed = (await env.s.get(`/api/v1/tools?session_id=${env.sid}`)).data.tools.map((x: any) => x.name);
  t.true(listed.includes('mcp__fx__echo'));
  t.false(listed.includes('mcp__fx__job'), 'GET /api/v1/tools does not list it either');
});

test('last_error says how a stdio server ended: its exit code or the signal, not only its startup banner', async (t) => {
  t.timeout(300_000);
  const env = await startMcpEngine(t, { code: stdioServer(), signal: stdioServer() }, YOLO);
  env.llm.setScript(step(call('c1', 'mcp__code__crash', { code: 7 }), call('c2', 'mcp__signal__crash', { signal: 'SIGKILL' })), scripts.helloText);
  t.is((await prompt(env, 'crash')).code, 0);
  t.is((await turnEnded(env, 1, 120_000)).payload.reason, 'completed');
  t.regex((await serverStatus(env.s, 'code', ['error'])).last_error, /^server process exited with code 7; stderr: .*running on stdio/s);
  t.regex((await serverStatus(env.s, 'signal', ['error'])).last_error, /^server process killed by SIGKILL/);
});

test('audio from a tool is saved to a file the result names; an image is journaled by its session media id', async (t) => {
  t.timeout(300_000);
  const env = await startMcpEngine(t, { fx: stdioServer() }, YOLO);
  env.llm.setScript(step(call('a1', 'mcp__fx__audio'), call('i1', 'mcp__fx__image')), scripts.helloText);
  t.is((await prompt(env, 'media')).code, 0);
  t.is((await turnEnded(env, 1, 120_000)).payload.reason, 'completed');
  const audio = (await resultOf(env, 'a1')).content;
  const file = /saved at (\S+)\]/.exec(audio)?.[1];
  t.truthy(file, audio);
  t.deepEqual(await readFile(file!), Buffer.from(WAV_SILENCE, 'base64'));
  const msgs = (await env.s.get(`/api/v1/sessions/${env.sid}/messages`)).data.items;
  const image = msgs.flatMap((m: any) => m.content).find((c: any) => c.type === 'tool_result' && c.tool_use_id === 'i1');
  t.true(Array.isArray(image.content), 'the journaled result holds the image by media id');
  const part = image.content.find((c: any) => c.type === 'image');
  t.is(part.source.kind, 'session_media');
  t.is(part.source.media_type, 'image/png');
  t.true((await readFile(path.join(env.home, 'sessions-media', env.sid, part.source.file_id))).length > 0);
});
