import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startFixtureLlm } from '../fixtures/llm/index.ts';
import { startResponder } from '../fixtures/llm/responder.ts';
import { longSession } from '../fixtures/llm/scripts/long-session.ts';
import { startDaemon } from './lib/daemon.ts';
import { ApiClient } from './lib/http.ts';
import { runBench } from './lib/lifecycle.ts';
import { intEnv, progress } from './lib/report.ts';
import { connectWs } from './lib/ws-client.ts';

/**
 * Issue 23 "Done when": a 40-turn session on a 32,000-token model with 20 KB tool outputs (each turn: a
 * prompt, a Bash call printing about 20 KB, the answer), against the strict fixture LLM that refuses a
 * request over the window as the provider does, on the chat-completions and the Anthropic messages
 * protocols. Reports every turn's outcome, and each compaction's tokens before and after.
 */

const TURNS = intEnv('BENCH_TURNS', 40);
const WINDOW = intEnv('BENCH_WINDOW_TOKENS', 32_000);
const OUTPUT_BYTES = intEnv('BENCH_OUTPUT_BYTES', 20_000);
const PROTOCOLS = (process.env.BENCH_PROTOCOLS ?? 'chat_compat,messages_api').split(',');
const UPSTREAM = 'ctx-model';

function config(url: string, type: string): string {
  return `default_model = "ctx"
auto_session_title = false
default_permission_mode = "yolo"

[providers.fx]
type = "${type}"
base_url = "${url}/v1"
api_key = "sk-test"

[models.ctx]
provider = "fx"
model = "${UPSTREAM}"
max_context_size = ${WINDOW}
`;
}

interface Compaction { turn: number; trigger: string; tokens_before: number; tokens_after: number; replaced_messages: number; kept_messages: number; summary_requests: number; truncated_results: number }

runBench('long-session', 5 * 60_000, async (scope) => {
  const runs = [];
  for (const type of PROTOCOLS) {
    const llm = await startFixtureLlm({ models: { [UPSTREAM]: { context_window: WINDOW } } });
    scope.defer(() => llm.close());
    const play = longSession({ outputBytes: OUTPUT_BYTES });
    const front = await startResponder(llm, play.respond);
    scope.defer(() => front.close());
    const home = await scope.tempDir('home');
    await writeFile(path.join(home, 'config.toml'), config(front.url, type));
    const daemon = await startDaemon(scope, home);
    const client = new ApiClient(daemon.baseUrl);
    scope.defer(() => client.close());
    const cwd = await scope.tempDir('ws');
    const sid = (await client.ok('POST', '/api/v1/sessions', { metadata: { cwd } })).id as string;
    const ws = await connectWs(daemon.baseUrl);
    scope.defer(() => ws.close());
    const ended: any[] = [];
    const compactions: Compaction[] = [];
    let retries = 0;
    let wake: (() => void) | undefined;
    let trigger = '';
    ws.onFrame = (f) => {
      if (f.session_id !== sid) return;
      const p = f.payload;
      if (f.type === 'turn.ended' && p.agent_id === 'main') {
        ended.push(p);
        wake?.();
      } else if (f.type === 'turn.step.retrying' && p.error?.kind === 'context_overflow') retries++;
      else if (f.type === 'compaction.started') trigger = p.trigger;
      else if (f.type === 'compaction.completed') {
        compactions.push({
          turn: ended.length + 1, trigger, tokens_before: p.tokens_before, tokens_after: p.tokens_after, replaced_messages: p.replaced_messages,
          kept_messages: p.kept_messages, summary_requests: p.summary_requests, truncated_results: p.truncated_results?.length ?? 0,
        });
      }
    };
    await ws.request('subscribe', { session_ids: [sid] });
    progress(`${type}: ${TURNS} turns, ${OUTPUT_BYTES} B tool outputs, ${WINDOW}-token window`);
    const t0 = performance.now();
    for (let i = 1; i <= TURNS; i++) {
      const done = new Promise<void>((resolve) => (wake = resolve));
      await client.ok('POST', `/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: `turn ${i}: run the command and report` }] });
      await done;
      if (i % 10 === 0) progress(`  ${type}: ${i} turns, ${compactions.length} compactions`);
    }
    const reasons = ended.map((e) => e.reason);
    runs.push({
      protocol: type,
      turns: TURNS,
      completed: reasons.filter((r) => r === 'completed').length,
      failed: ended.filter((e) => e.reason !== 'completed').map((e) => e.error),
      duration_s: Math.round((performance.now() - t0) / 100) / 10,
      compactions: compactions.length,
      refused_by_fixture: llm.refusals.length,
      overflow_retries: retries,
      model_requests: llm.requests.length,
      compaction_list: compactions,
    });
    await ws.close();
    await daemon.stop();
  }
  return {
    description: `${TURNS} turns, each a Bash call printing about ${OUTPUT_BYTES} bytes, on a ${WINDOW}-token model (reserved_context_size unset), `
      + 'against the strict fixture LLM (its own token count; refuses over the window); tokens are the daemon\'s estimate of the request (system, tools, messages)',
    pass: runs.every((r) => r.completed === TURNS),
    runs,
  };
});
