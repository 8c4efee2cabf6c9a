import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { startBridge } from '../../fixtures/mcp/bridge.mjs';
import { REFERENCE, startEverything } from '../../fixtures/mcp/reference.mjs';
import { journal, prompt, turnEnded, YOLO, type EngineEnv } from '../helpers/engine.ts';
import { serverStatus, startMcpEngine } from '../helpers/mcp.ts';

// The published reference servers (dev dependencies), registered through the v2 routes while a session is
// live, as a user would, and used over stdio, streamable HTTP and SSE (docs/mcp.md "Tests").

const node = process.execPath;
const call = (id: string, name: string, args: unknown = {}) => ({ tool_call: { id, name, args } });
const step = (...calls: Array<ReturnType<typeof call>>) => ({ events: calls });
const resultOf = async (env: EngineEnv, id: string) => (await journal(env)).find((e) => e.type === 'tool.result' && e.payload.tool_call_id === id)?.payload;
/** The tool_result blocks of the Anthropic request that followed the calls. */
const sentResults = (env: EngineEnv, request: number) => env.llm.requests[request]!.body.messages
  .flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))
  .filter((c: any) => c.type === 'tool_result');
const sentResult = (env: EngineEnv, request: number, id: string) => sentResults(env, request).find((c: any) => c.tool_use_id === id);

/** A live session (its runtime loaded by a read) that gains `name` through POST /api/v2/mcp/servers. */
async function addServer(env: EngineEnv, name: string, config: Record<string, unknown>): Promise<void> {
  const r = await env.s.post('/api/v2/mcp/servers', { name, ...config });
  if (r.code !== 0) throw new Error(JSON.stringify(r));
}

async function engine(t: any): Promise<EngineEnv & { home: string }> {
  // A loaded machine runs these slowly; the bounds are waits, not expectations.
  t.timeout(300_000);
  const env = await startMcpEngine(t, {}, YOLO, { wire: 'messages_api' });
  t.is((await env.s.get(`/api/v1/sessions/${env.sid}/status`)).code, 0);
  return env;
}

const everythingTransports = [
  { transport: 'stdio', config: async () => ({ config: { transport: 'stdio', command: node, args: [REFERENCE.everything, 'stdio'] }, close: async () => undefined }) },
  { transport: 'http', config: async () => { const e = await startEverything('streamableHttp'); return { config: { transport: 'http', url: e.url }, close: () => e.close() }; } },
  { transport: 'sse', config: async () => { const e = await startEverything('sse'); return { config: { transport: 'sse', url: e.url }, close: () => e.close() }; } },
] as const;

for (const { transport, config } of everythingTransports) {
  test(`server-everything over ${transport}: added to a live session; echo, image, structured content, the last progress, roots, resource links and ReadMcpResource within its bounds`, async (t) => {
    const server = await config();
    t.teardown(() => server.close());
    const env = await engine(t);
    await addServer(env, 'everything', server.config);
    t.like(await serverStatus(env.s, 'everything', ['disconnected']), { transport: server.config.transport }, 'listed, not started before a turn');
    env.llm.setScript(
      step(
        call('e1', 'mcp__everything__echo', { message: 'hi' }),
        call('i1', 'mcp__everything__get-tiny-image'),
        call('s1', 'mcp__everything__get-structured-content', { location: 'Chicago' }),
        call('p1', 'mcp__everything__trigger-long-running-operation', { duration: 1, steps: 3 }),
        call('r1', 'mcp__everything__get-roots-list'),
        call('l1', 'mcp__everything__get-resource-links', { count: 2 }),
      ),
      step(
        call('m1', 'ReadMcpResource', { server: 'everything', uri: 'demo://resource/dynamic/text/2' }),
        call('m2', 'ReadMcpResource', { server: 'everything', uri: 'demo://resource/dynamic/text/2', offset: 12, max_chars: 4 }),
        call('m3', 'ReadMcpResource', { server: 'everything', uri: 'demo://resource/dynamic/text/2', offset: 100_000 }),
      ),
      scripts.helloText,
    );
    t.is((await prompt(env, 'go')).code, 0);
    t.is((await turnEnded(env, 1, 180_000)).payload.reason, 'completed');
    t.like(await resultOf(env, 'e1'), { is_error: false, content: 'Echo: hi' });
    // 4: the image reaches the model as an image (Anthropic tool_result content), not as text.
    const image = sentResult(env, 1, 'i1');
    t.true(Array.isArray(image.content), JSON.stringify(image).slice(0, 300));
    t.true(image.content.some((c: any) => c.type === 'image' && c.source?.type === 'base64' && c.source.media_type === 'image/png'));
    // 7: structured content once (its text serialization), not twice.
    const structured = (await resultOf(env, 's1')).content;
    t.is(structured.match(/temperature/g)?.length, 1, structured);
    // 7: every progress notification, the last included, before the result.
    const progress = env.ws.frames.filter((f) => f.type === 'tool.progress' && f.payload.tool_call_id === 'p1').map((f) => f.payload.progress);
    t.deepEqual(progress, [1, 2, 3]);
    // 7: roots: the session's workspace root.
    const session = (await env.s.get(`/api/v1/sessions/${env.sid}`)).data;
    t.true((await resultOf(env, 'r1')).content.includes(`file://${session.metadata.cwd}`), (await resultOf(env, 'r1')).content);
    // Resources: a link names ReadMcpResource; the tool reads it.
    t.regex((await resultOf(env, 'l1')).content, /ReadMcpResource \{"server": "everything", "uri": "demo:\/\/resource\/dynamic\/text\/2"\}/);
    const offered = env.llm.requests[0]!.body.tools.map((x: any) => x.name);
    t.true(offered.includes('ReadMcpResource'));
    t.like(await resultOf(env, 'm1'), { is_error: false });
    t.regex((await resultOf(env, 'm1')).content, /Resource 2/);
    // Bounded like Read: max_chars from offset, then where to continue; an offset past the end says so.
    t.regex((await resultOf(env, 'm2')).content, /^This\n\[truncated at the character budget: showed characters 12-16 of \d+; continue with offset=16\]$/);
    t.regex((await resultOf(env, 'm3')).content, /^\[offset 100000 is past the end of the text \(\d+ characters\)\]$/);
  });
}

test('server-everything: a task-required tool runs as a task; an elicitation of 13 fields is asked in pages of 4 and accepted', async (t) => {
  const env = await engine(t);
  await addServer(env, 'everything', { transport: 'stdio', command: node, args: [REFERENCE.everything, 'stdio'] });
  env.llm.setScript(step(call('k1', 'mcp__everything__simulate-research-query', { topic: 'owls' })), step(call('q1', 'mcp__everything__trigger-elicitation-request')), scripts.helloText);
  t.is((await prompt(env, 'go')).code, 0);
  const pages: any[] = [];
  for (let page = 0; page < 4; page++) {
    const q = await (await import('../helpers/wait.ts')).until(async () => {
      const items = (await env.s.get(`/api/v1/sessions/${env.sid}/questions?status=pending`)).data.items;
      return items.find((x: any) => !pages.some((p) => p.question_id === x.question_id));
    }, 180_000, `elicitation page ${page + 1}`);
    pages.push(q);
    // Answer the name field (the only required one) and skip the rest: their defaults apply.
    const answers: Record<string, unknown> = {};
    q.questions.forEach((x: any, i: number) => (answers[`q_${i}`] = page === 0 && i === 0 ? { kind: 'other', text: 'Ada' } : { kind: 'skipped' }));
    t.is((await env.s.post(`/api/v1/sessions/${env.sid}/questions/${q.question_id}`, { answers })).code, 0);
  }
  t.is((await turnEnded(env, 1, 180_000)).payload.reason, 'completed');
  t.deepEqual(pages.map((p) => p.questions.length), [4, 4, 4, 1]);
  t.regex(pages[0].questions[0].question, /Please provide inputs/);
  const task = await resultOf(env, 'k1');
  t.false(task.is_error, task.content);
  t.regex(task.content, /owls/);
  const asked = await resultOf(env, 'q1');
  t.regex(asked.content, /"action": "accept"/);
  t.regex(asked.content, /- Name: Ada/);
  t.regex(asked.content, /- Favorite Integer: 42/, 'a skipped field takes its default');
});

/** docs/mcp.md "Tools": a name over 64 characters keeps its first 55 and ends with `_` and 8 hex digits of its SHA-256. */
const cutName = (full: string) => (full.length <= 64 ? full : `${full.slice(0, 55)}_${createHash('sha256').update(full).digest('hex').slice(0, 8)}`);

const bridged = (script: string, args: string[], env: Record<string, string> = {}) => ({ command: node, args: [script, ...args], env });

for (const transport of ['stdio', 'http'] as const) {
  test(`server-filesystem over ${transport}: started without directories it works in the session's roots; a 3 MB file comes back as a preview and a saved file Read can page through`, async (t) => {
    const env = await engine(t);
    const session = (await env.s.get(`/api/v1/sessions/${env.sid}`)).data;
    const root: string = session.metadata.cwd;
    const line = (i: number) => `row ${i} ${'y'.repeat(70)}`;
    await writeFile(path.join(root, 'big.txt'), Array.from({ length: 40_000 }, (_, i) => line(i + 1)).join('\n'));
    const cmd = bridged(REFERENCE.filesystem, []);
    let close = async () => undefined as unknown;
    if (transport === 'stdio') await addServer(env, 'fs', { transport: 'stdio', ...cmd });
    else {
      const bridge = await startBridge(cmd, { transport: 'http' });
      close = () => bridge.close();
      await addServer(env, 'fs', { transport: 'http', url: bridge.url });
    }
    t.teardown(() => close());
    const saved = path.join(env.home, 'tool-results', env.sid, 'b1.txt');
    env.llm.setScript(
      step(call('a1', 'mcp__fs__list_allowed_directories'), call('b1', 'mcp__fs__read_text_file', { path: path.join(root, 'big.txt') })),
      step(call('c1', 'Read', { file_path: saved, offset: 30_000, limit: 2 })),
      scripts.helloText,
    );
    t.is((await prompt(env, 'go')).code, 0);
    t.is((await turnEnded(env, 1, 180_000)).payload.reason, 'completed');
    t.regex((await resultOf(env, 'a1')).content, new RegExp(root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    const big = await resultOf(env, 'b1');
    t.false(big.is_error);
    t.true(big.content.length < 5_000, `${big.content.length} characters`);
    t.true(big.content.includes(saved));
    t.true(big.content.includes(line(1)));
    const sent = sentResult(env, 1, 'b1');
    t.true(JSON.stringify(sent).length < 10_000, 'the model got the preview, not 3 MB');
    t.is(await readFile(saved, 'utf8'), await readFile(path.join(root, 'big.txt'), 'utf8'), 'the whole output is saved');
    t.regex((await resultOf(env, 'c1')).content, /row 30000 y+\n\s+30001\trow 30001/);
  });

  test(`server-memory over ${transport} under a 64-character name: every tool name cut to 64 with a hash suffix and mapped back; structured content reaches the model once`, async (t) => {
    const env = await engine(t);
    // The longest server name: `mcp__<server>__<tool>` is 71 characters or more, which OpenAI-style APIs refuse.
    const server = `knowledge-graph-${'m'.repeat(48)}`;
    const name = (tool: string) => cutName(`mcp__${server}__${tool}`);
    await mkdir(path.join(env.home, 'memory'), { recursive: true });
    const cmd = bridged(REFERENCE.memory, [], { MEMORY_FILE_PATH: path.join(env.home, 'memory', 'memory.jsonl') });
    let close = async () => undefined as unknown;
    if (transport === 'stdio') await addServer(env, server, { transport: 'stdio', ...cmd });
    else {
      const bridge = await startBridge(cmd, { transport: 'http' });
      close = () => bridge.close();
      await addServer(env, server, { transport: 'http', url: bridge.url });
    }
    t.teardown(() => close());
    env.llm.setScript(
      step(call('c1', name('create_entities'), { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] })),
      step(call('g1', name('read_graph'))),
      scripts.helloText,
    );
    t.is((await prompt(env, 'go')).code, 0);
    t.is((await turnEnded(env, 1, 180_000)).payload.reason, 'completed');
    const offered: string[] = env.llm.requests[0]!.body.tools.map((x: any) => x.name).filter((n: string) => n.startsWith('mcp__'));
    t.true(offered.length >= 9, offered.join('\n'));
    t.true(offered.every((n) => n.length === 64 && /_[0-9a-f]{8}$/.test(n)), offered.join('\n'));
    t.is(new Set(offered).size, offered.length);
    t.deepEqual(env.llm.requests[1]!.body.tools.map((x: any) => x.name).filter((n: string) => n.startsWith('mcp__')), offered, 'the same names on the next request');
    const created = (await resultOf(env, 'c1')).content;
    t.is(created.match(/wrote the first program/g)?.length, 1, created);
    t.false(created.includes('[structured content]'));
    t.is((await resultOf(env, 'g1')).content.match(/wrote the first program/g)?.length, 1);
  });
}
