import test from 'ava';
import { Coalescer } from '../../src/ws/coalesce.ts';
import { until } from '../helpers/wait.ts';

// The coalescer's timer for a part `split` holds back (the transcript's tool-input spacing, src/ws/transcript/pacing.ts):
// armed once for the time the part may leave, instead of firing every window until then (review of session 6).

const WINDOW = 16;
const HOLD_MS = 400;

/**
 * Items are strings; `split` holds back anything marked `tool:` until HOLD_MS after the first time it saw it, and
 * a newer `tool:` item replaces the held one and waits with it (`holdsWith`).
 */
function setup(holdMs = HOLD_MS) {
  const sent: Array<{ item: string; at: number }> = [];
  const splits: number[] = [];
  let second!: () => void;
  const secondSent = new Promise<void>((resolve) => (second = resolve));
  let heldSince: number | undefined;
  const c = new Coalescer<string>({
    windowMs: WINDOW,
    minSize: 1,
    size: (s) => s.length,
    merge: (held, next) => (next.startsWith('tool:') ? next : held + next),
    holdsWith: (held, next) => held.startsWith('tool:') && next.startsWith('tool:'),
    split: (_g, _l, item, now) => {
      splits.push(now);
      if (!item.startsWith('tool:')) return { now: item };
      heldSince ??= now;
      if (now - heldSince >= holdMs - 1) return { now: item };
      return { later: item, at: heldSince + holdMs };
    },
    send: (_g, _l, item) => {
      sent.push({ item, at: performance.now() });
      if (sent.length === 2) second();
    },
  });
  return { c, sent, splits, secondSent };
}

test.serial('a held-back part waits on one timer for the time split gives, not a release attempt every window', async (t) => {
  const { c, sent, splits, secondSent } = setup();
  t.teardown(() => c.close());
  // Count the timers armed while the part waits (the coalescer arms with the global setTimeout).
  const real = globalThis.setTimeout;
  let armed = 0;
  globalThis.setTimeout = ((fn: () => void, ms?: number) => {
    armed += 1;
    return real(fn, ms);
  }) as typeof setTimeout;
  t.teardown(() => {
    globalThis.setTimeout = real;
  });

  c.push('s', 'main', 'main', 'step1', 'first');
  t.deepEqual(sent.map((s) => s.item), ['first'], 'the first delta of a step leaves at once');
  const t0 = performance.now();
  c.push('s', 'main', 'main', 'step1', 'tool:{"content":"xxxx');
  // Waited on without polling: every setTimeout until then is the coalescer's.
  await secondSent;
  const waited = sent[1]!.at - t0;
  t.is(sent[1]!.item, 'tool:{"content":"xxxx');
  t.true(waited >= HOLD_MS - 2, `left after ${waited.toFixed(1)} ms, not before the time split gave`);
  t.log(`${splits.length} split calls, ${armed} timers armed over ${waited.toFixed(0)} ms`);
  // One release at the end of the first window (split holds it back until HOLD_MS), one when HOLD_MS is up.
  // Re-armed every window, it was ~HOLD_MS / WINDOW = 25 of each.
  t.is(splits.length, 2, 'split asked once when the window ended and once when the part may leave');
  t.true(armed <= 3, `${armed} timers armed`);
});

test.serial('a delta merged into a held-back part makes the next release ask split again (the new part may leave sooner)', async (t) => {
  const sent: string[] = [];
  let calls = 0;
  const c = new Coalescer<string[]>({
    windowMs: WINDOW,
    minSize: 1,
    size: (ops) => ops.length,
    merge: (held, next) => [...held, ...next],
    split: (_g, _l, ops) => {
      calls += 1;
      const text = ops.filter((o) => !o.startsWith('tool:'));
      const tool = ops.filter((o) => o.startsWith('tool:'));
      return { ...(text.length ? { now: text } : {}), ...(tool.length ? { later: tool, at: performance.now() + 60_000 } : {}) };
    },
    send: (_g, _l, ops) => sent.push(...ops),
  });
  t.teardown(() => c.close());
  c.push('s', 'main', 'main', 'step1', ['first']);
  c.push('s', 'main', 'main', 'step1', ['tool:a']);
  await until(() => calls >= 1, 30_000, 'the first timed release');
  t.deepEqual(sent, ['first'], 'the tool part is held back for a minute');
  c.push('s', 'main', 'main', 'step1', ['text after']);
  await until(() => sent.includes('text after'), 30_000, 'the merged text left about a window later, not a minute later');
  t.false(sent.includes('tool:a'));
  c.flush('s');
  t.deepEqual(sent, ['first', 'text after', 'tool:a'], 'a flush sends what is held back');
});

test.serial('updates of a held-back part (a tool input still streaming) wait with it: no release attempt per window', async (t) => {
  // A hold long enough for several updates 5 ms apart however busy the machine (a starved process fires both timers
  // late, and the hold's first).
  const { c, sent, splits, secondSent } = setup(2000);
  t.teardown(() => c.close());
  c.push('s', 'main', 'main', 'step1', 'first');
  c.push('s', 'main', 'main', 'step1', 'tool:{"content":"x');
  // A newer input every 5 ms until the held part leaves (all during the hold).
  let n = 0;
  let left = false;
  void secondSent.then(() => (left = true));
  const more = setInterval(() => {
    if (!left) c.push('s', 'main', 'main', 'step1', `tool:{"content":"${'x'.repeat(++n)}`);
  }, 5);
  t.teardown(() => clearInterval(more));
  await secondSent;
  clearInterval(more);
  t.true(n >= 5, `${n} updates during the hold`);
  t.is(sent[1]!.item, `tool:{"content":"${'x'.repeat(n)}`, 'the newest input leaves');
  t.log(`${splits.length} split calls for ${n} updates`);
  t.is(splits.length, 2, 'split asked when the first window ended and when the part may leave, not per update or window');
});
