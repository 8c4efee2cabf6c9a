import test from 'ava';
import { longSession } from '../../fixtures/llm/scripts/long-session.ts';
import { journalOf, PROTOCOLS, runTurns, windowSession } from '../helpers/context-window.ts';

// Issue 23 scenario table rows 1-3: a working session with 20 KB tool outputs on a small window, on
// both wire protocols. Every turn must complete: the engine compacts before a step that would not fit.

const TURNS = Array.from({ length: 10 }, (_, i) => `turn ${i + 1}: run the command and report`);

const rows: Array<{ name: string; window: number; reserve?: number; compacts: boolean }> = [
  { name: '32,000-token model, reserved_context_size unset', window: 32_000, compacts: true },
  { name: '64,000-token model, reserved_context_size unset', window: 64_000, compacts: true },
  { name: '32,000-token model with a reserve set', window: 32_000, reserve: 6000, compacts: true },
];

for (const protocol of PROTOCOLS) {
  for (const row of rows) {
    test(`${protocol}: 10 turns with 20 KB tool outputs on a ${row.name}: every turn completes`, async (t) => {
      const play = longSession({ outputBytes: 20_000 });
      const env = await windowSession(t, { protocol, window: row.window, ...(row.reserve !== undefined ? { reserve: row.reserve } : {}), respond: play.respond });
      const ended = await runTurns(env, TURNS);
      t.deepEqual(ended.map((e) => e.reason), TURNS.map(() => 'completed'), JSON.stringify(ended.find((e) => e.reason !== 'completed')?.error));
      const events = await journalOf(env);
      const done = events.filter((e) => e.type === 'compaction.completed');
      t.true(done.length > 0, 'the session compacted');
      t.false(events.some((e) => e.type === 'compaction.failed'));
      // Each compaction brought the context back under the window, with room to work.
      for (const d of done) t.true(d.payload.tokens_after < row.window / 2, `tokens_after ${d.payload.tokens_after}`);
    });
  }
}
