import test from 'ava';
import { longSession } from '../../fixtures/llm/scripts/long-session.ts';
import { journalOf, PROTOCOLS, runTurns, windowSession } from '../helpers/context-window.ts';

// Issue 23 scenario table rows 1-3: a working session with 20 KB tool outputs on a small window, on
// both wire protocols. Every turn must complete: the engine compacts before a step that would not fit, so the
// provider never sees a request over its window.

const prompts = (n: number) => Array.from({ length: n }, (_, i) => `turn ${i + 1}: run the command and report`);

// The issue ran 10 turns on the 32,000-token model and 12 on the 64,000-token one (where 10 still fit).
const rows: Array<{ name: string; window: number; reserve?: number; turns: number }> = [
  { name: '32,000-token model, reserved_context_size unset', window: 32_000, turns: 10 },
  { name: '64,000-token model, reserved_context_size unset', window: 64_000, turns: 12 },
  { name: '32,000-token model with a reserve set', window: 32_000, reserve: 6000, turns: 10 },
];

for (const protocol of PROTOCOLS) {
  for (const row of rows) {
    test(`${protocol}: ${row.turns} turns with 20 KB tool outputs on a ${row.name}: every turn completes`, async (t) => {
      const play = longSession({ outputBytes: 20_000 });
      const env = await windowSession(t, { protocol, window: row.window, ...(row.reserve !== undefined ? { reserve: row.reserve } : {}), respond: play.respond });
      const turns = prompts(row.turns);
      const ended = await runTurns(env, turns);
      t.deepEqual(ended.map((e) => e.reason), turns.map(() => 'completed'), JSON.stringify(ended.find((e) => e.reason !== 'completed')?.error));
      const events = await journalOf(env);
      const done = events.filter((e) => e.type === 'compaction.completed');
      t.true(done.length > 0, 'the session compacted');
      t.false(events.some((e) => e.type === 'compaction.failed'));
      // The compactions came before the steps that would not fit (the default reserve), not after the provider
      // refused one: the compact-and-retry on a context-length error is the fallback, not what keeps the session alive.
      t.deepEqual(env.llm.refusals.map((r) => r.message), [], 'no request over the window reached the provider');
      t.false(events.some((e) => e.type === 'turn.step.retrying' && e.payload.error?.kind === 'context_overflow'), 'no step retried after a refusal');
      // Each compaction brought the context back under the window, with room to work.
      for (const d of done) t.true(d.payload.tokens_after < row.window / 2, `tokens_after ${d.payload.tokens_after}`);
    });
  }
}
