import { startFixtureLlm, type FixtureLlm, type FixtureOptions } from '../../fixtures/llm/index.ts';

export const MODEL = 'fx/model';

/**
 * config.toml with one chat_compat provider aimed at the fixture LLM and it as the default model.
 * The model declares `thinking` and `image_in`: thinking parameters and images reach it (a model
 * without them gets neither; test/engine/capabilities.test.ts).
 */
export function engineConfig(llmUrl: string, extra = ''): string {
  // Auto titles would take fixture replies meant for the turns.
  return `default_model = "${MODEL}"
auto_session_title = false
${extra}

[providers.fx]
type = "chat_compat"
base_url = "${llmUrl}/v1"
api_key = "sk-test"

[models."${MODEL}"]
provider = "fx"
model = "fixture-model"
max_context_size = 100000
capabilities = ["thinking", "image_in"]
`;
}

/**
 * A fixture LLM closed when the test ends. It keeps the real providers' rules (docs/wire-protocols.md);
 * `opts.models` describes upstream models (window, thinking, images), `opts.lenient` is only for a
 * known daemon defect being fixed, with a TODO naming it.
 */
export async function fixtureLlm(t: { teardown(fn: () => unknown): void }, opts?: FixtureOptions): Promise<FixtureLlm> {
  const f = await startFixtureLlm(opts);
  t.teardown(() => f.close());
  return f;
}
