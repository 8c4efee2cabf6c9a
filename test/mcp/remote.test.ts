import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { startHttpMcp } from '../../fixtures/mcp/servers.mjs';
import { journal, prompt, turnEnded, type EngineEnv } from '../helpers/engine.ts';
import { serverStatus, startMcpEngine, startSessionServers } from '../helpers/mcp.ts';

const resultOf = async (env: EngineEnv, id: string) => (await journal(env)).find((e) => e.type === 'tool.result' && e.payload.tool_call_id === id)?.payload;
const callEcho = (id: string, server: string, text: string) => ({ events: [{ tool_call: { id, name: `mcp__${server}__echo`, args: { text } } }] });

test('streamable HTTP and SSE servers: connected in the v1 list, their tools run in a turn', async (t) => {
  t.timeout(300_000, 'MCP children start slowly on a loaded machine');
  const web = await startHttpMcp({ transport: 'http' });
  const events = await startHttpMcp({ transport: 'sse' });
  t.teardown(async () => {
    await web.close();
    await events.close();
  });
  const env = await startMcpEngine(t, { web: { transport: 'http', url: web.url }, events: { transport: 'sse', url: events.url } }, 'default_permission_mode = "yolo"');
  await startSessionServers(env.s, env.sid);
  t.like(await serverStatus(env.s, 'web', ['connected']), { transport: 'http', status: 'connected' });
  t.like(await serverStatus(env.s, 'events', ['connected']), { transport: 'sse', status: 'connected' });
  env.llm.setScript({ events: [callEcho('w1', 'web', 'over http').events[0]!, callEcho('s1', 'events', 'over sse').events[0]!] }, scripts.helloText);
  t.is((await prompt(env, 'go')).code, 0);
  t.is((await turnEnded(env, 1, 120_000)).payload.reason, 'completed');
  t.like(await resultOf(env, 'w1'), { is_error: false, content: 'echo: over http' });
  t.like(await resultOf(env, 's1'), { is_error: false, content: 'echo: over sse' });
  t.deepEqual(web.calls, [{ tool: 'echo', args: { text: 'over http' } }]);
  t.deepEqual(events.calls, [{ tool: 'echo', args: { text: 'over sse' } }]);
});

for (const transport of ['http', 'sse'] as const) {
  test(`a dropped ${transport} session reconnects once and retries the same call once`, async (t) => {
  t.timeout(300_000, 'MCP children start slowly on a loaded machine');
    const remote = await startHttpMcp({ transport });
    t.teardown(() => remote.close());
    const env = await startMcpEngine(t, { r: { transport, url: remote.url } }, 'default_permission_mode = "yolo"');
    env.llm.setScript(callEcho('c1', 'r', 'one'), scripts.helloText, callEcho('c2', 'r', 'two'), scripts.helloText);
    t.is((await prompt(env, 'first')).code, 0);
    await turnEnded(env, 1, 120_000);
    await remote.dropSessions();
    t.is((await prompt(env, 'second')).code, 0);
    t.is((await turnEnded(env, 2, 120_000)).payload.reason, 'completed');
    t.like(await resultOf(env, 'c1'), { is_error: false, content: 'echo: one' });
    t.like(await resultOf(env, 'c2'), { is_error: false, content: 'echo: two' });
    t.deepEqual(remote.calls.map((c) => c.tool), ['echo', 'echo'], 'the same tool, once per model call');
    t.is((await serverStatus(env.s, 'r', ['connected'])).status, 'connected');
  });
}

test('a server that goes away for good: one reconnect attempt, then a tool error (no other tool is called)', async (t) => {
  t.timeout(300_000, 'MCP children start slowly on a loaded machine');
  const remote = await startHttpMcp({ transport: 'http' });
  const env = await startMcpEngine(t, { r: { transport: 'http', url: remote.url, startupTimeoutMs: 10_000 } }, 'default_permission_mode = "yolo"');
  env.llm.setScript(callEcho('c1', 'r', 'one'), scripts.helloText, callEcho('c2', 'r', 'two'), scripts.helloText);
  t.is((await prompt(env, 'first')).code, 0);
  await turnEnded(env, 1, 120_000);
  await remote.close();
  t.is((await prompt(env, 'second')).code, 0);
  t.is((await turnEnded(env, 2, 120_000)).payload.reason, 'completed');
  const second = await resultOf(env, 'c2');
  t.true(second.is_error);
  t.regex(second.content, /did not reconnect|fetch failed|ECONNREFUSED/);
  t.deepEqual(remote.calls.map((c) => c.tool), ['echo']);
});
