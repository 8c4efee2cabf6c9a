import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { SubagentLauncher } from '../src/agents/launcher.ts';
import { runBench } from './lib/lifecycle.ts';
import { startMcpDaemon, STDIO_FIXTURE, stdioServer } from './lib/mcp.ts';
import { intEnv, progress } from './lib/report.ts';
import { median, round } from './lib/stats.ts';

const SAMPLES = intEnv('BENCH_SAMPLES', 500);
const WARMUP = 50;
const TARGET_OVERHEAD_MS = 2;

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

runBench('mcp-call', 3 * 60_000, async (scope) => {
  const { server, api } = await startMcpDaemon(scope, { fx: stdioServer() }, 'default_permission_mode = "yolo"\n');
  const cwd = await scope.tempDir('mcp-ws');
  const sid = (await api('POST', '/api/v1/sessions', { metadata: { cwd } })).id as string;
  await api('GET', `/api/v1/sessions/${sid}/status`);
  const { tools, mcp } = server.parts;
  await mcp.ready(sid);
  const listed = await mcp.servers(sid);
  if (!listed.every((x) => x.status === 'connected')) throw new Error(`fixture not connected: ${JSON.stringify(listed)}`);

  // The same fixture server, called straight through the SDK.
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [STDIO_FIXTURE, 'stdio'] }));
  scope.defer(() => client.close());

  const signal = new AbortController().signal;
  const launcher = {} as SubagentLauncher;
  let n = 0;
  const viaDaemon = async () => {
    const out = await tools.run(sid, { id: `call_${n++}`, name: 'mcp__fx__echo', input: { text: 'bench' } }, signal, { agentId: 'main' }, launcher);
    if (out.is_error || out.content !== 'echo: bench') throw new Error(`unexpected result: ${JSON.stringify(out)}`);
  };
  const direct = async () => {
    const r = await client.callTool({ name: 'echo', arguments: { text: 'bench' } }) as { content: Array<{ text: string }> };
    if (r.content[0]?.text !== 'echo: bench') throw new Error(`unexpected result: ${JSON.stringify(r)}`);
  };
  progress(`${WARMUP} warm-up pairs, then ${SAMPLES} paired samples: the daemon's executor vs the SDK client, the same stdio fixture`);
  for (let i = 0; i < WARMUP; i++) { await viaDaemon(); await direct(); }
  const daemon: number[] = [];
  const raw: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    daemon.push(await time(viaDaemon));
    raw.push(await time(direct));
  }
  const overhead = median(daemon.map((d, i) => d - raw[i]!));
  progress(`daemon p50 ${round(median(daemon))} ms, direct p50 ${round(median(raw))} ms, overhead p50 ${round(overhead)} ms`);
  return {
    description: 'An MCP tool call (mcp__fx__echo) through the daemon\'s tool executor (the [tools] lists, the permission gate in yolo mode, '
      + 'tool.call.started and tool.result journaled, the SDK client of the session) minus the same call made directly with the SDK client '
      + 'on its own child of the same stdio fixture; paired samples, median; in-process, no model.',
    samples: SAMPLES,
    daemon_p50_ms: round(median(daemon)),
    direct_p50_ms: round(median(raw)),
    overhead_p50_ms: round(overhead),
    target_ms: TARGET_OVERHEAD_MS,
    pass: overhead < TARGET_OVERHEAD_MS,
  };
});
