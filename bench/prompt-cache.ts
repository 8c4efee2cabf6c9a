import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startFixtureLlm } from '../fixtures/llm/index.ts';
import { startDaemon } from './lib/daemon.ts';
import { ApiClient } from './lib/http.ts';
import { runBench } from './lib/lifecycle.ts';
import { intEnv, progress } from './lib/report.ts';

/**
 * Issue 26: the cached share of prompt tokens over a TURNS-turn session on messages_api. Each turn is two
 * model steps (a Bash call, then the answer); the fixture bills the request's cache_control breakpoints the
 * way Anthropic does (fixtures/llm/prompt-cache.ts: a read of the longest prefix written before, 1024-token
 * minimum, ~4 characters a token). Reported from the fixture's side and from the daemon's session usage.
 */
const TURNS = intEnv('BENCH_TURNS', 20);

runBench('prompt-cache', 5 * 60_000, async (scope) => {
  const llm = await startFixtureLlm({ promptCache: true });
  scope.defer(() => llm.close());
  const home = await scope.tempDir('prompt-cache-home');
  const cwd = await scope.tempDir('prompt-cache-cwd');
  await writeFile(path.join(home, 'config.toml'), `default_model = "fx/claude"
auto_session_title = false
default_permission_mode = "yolo"

[providers.fx]
type = "messages_api"
base_url = "${llm.url}/v1"
api_key = "sk-bench"

[models."fx/claude"]
provider = "fx"
model = "claude-sonnet-4-5"
max_context_size = 200000
max_output_size = 8192
`);
  const daemon = await startDaemon(scope, home);
  const client = new ApiClient(daemon.baseUrl);
  scope.defer(() => client.close());
  const sid = (await client.request('POST', '/api/v1/sessions', { metadata: { cwd } })).body!.data.id;
  for (let turn = 1; turn <= TURNS; turn++) {
    llm.setScript(
      { events: [{ tool_call: { id: `b${turn}`, name: 'Bash', args: { command: `echo step ${turn}` } } }] },
      { events: [{ text: `Turn ${turn} done: the command printed step ${turn}. `.repeat(8) }] },
    );
    const before = llm.requests.length;
    const r = await client.request('POST', `/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: `Turn ${turn}: run the next step and tell me what it printed.` }] });
    if (r.body?.code !== 0) throw new Error(`prompt ${turn}: ${JSON.stringify(r.body)}`);
    for (let i = 0; ; i++) {
      const s = (await client.request('GET', `/api/v1/sessions/${sid}`)).body!.data;
      if (llm.requests.length >= before + 2 && !s.busy) break;
      if (i > 600) throw new Error(`turn ${turn} did not end`);
      await new Promise((ok) => setTimeout(ok, 50));
    }
  }
  const billed = llm.requests.flatMap((q) => (q.cacheUsage ? [q.cacheUsage] : []));
  const sum = (k: 'input' | 'cache_read' | 'cache_creation') => billed.reduce((n, u) => n + u[k], 0);
  const usage = (await client.request('GET', `/api/v1/sessions/${sid}/snapshot`)).body!.data.session.usage;
  const share = (read: number, input: number) => Math.round((1000 * read) / Math.max(1, input)) / 10;
  const lastTurn = billed.slice(-2);
  const result = {
    turns: TURNS,
    requests: billed.length,
    fixture: { input_tokens: sum('input'), cache_read_tokens: sum('cache_read'), cache_creation_tokens: sum('cache_creation'), cached_pct: share(sum('cache_read'), sum('input')) },
    daemon_usage: { input_tokens: usage.input_tokens, cache_read_tokens: usage.cache_read_tokens, cache_creation_tokens: usage.cache_creation_tokens, cached_pct: share(usage.cache_read_tokens, usage.input_tokens) },
    last_turn_cached_pct: share(lastTurn.reduce((n, u) => n + u.cache_read, 0), lastTurn.reduce((n, u) => n + u.input, 0)),
  };
  progress(`prompt-cache: ${JSON.stringify(result)}`);
  return result;
});
