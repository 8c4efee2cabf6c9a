import test from 'ava';
import type { Journal } from '../../journal/journal.ts';
import type { JournalEvent } from '../../journal/types.ts';
import type { Projection } from '../../projections/projection.ts';
import { ProjectionRunner } from '../../projections/runner.ts';

// A followed event whose projection apply throws is applied again on the follower's retry (journal applyRemote):
// the projections before the one that threw applied it already and must not apply it twice.

function counter(name: string, failOnce = false): Projection & { count: number } {
  let fail = failOnce;
  return {
    name, version: 1, count: 0,
    apply() {
      if (fail) {
        fail = false;
        throw new Error(`${name} failed once`);
      }
      this.count++;
      return [];
    },
    load() {},
    reset() { this.count = 0; },
  };
}

const event = (seq: number): JournalEvent => ({ stream: 's1', seq, epoch: 'e1', type: 'session.profile_updated', ts: '2026-11-29T00:00:00.000Z', payload: {} } as JournalEvent);

test('a derive retried after a projection threw applies the event once to every projection', (t) => {
  const first = counter('first');
  const second = counter('second', true);
  const third = counter('third');
  const runner = new ProjectionRunner({} as Journal, [first, second, third]);
  t.throws(() => runner.derive([event(1)]), { message: 'second failed once' });
  t.deepEqual([first.count, second.count, third.count], [1, 0, 0]);
  runner.derive([event(1)]);
  t.deepEqual([first.count, second.count, third.count], [1, 1, 1]);
  // The next event is applied to all of them, as usual.
  runner.derive([event(2)]);
  t.deepEqual([first.count, second.count, third.count], [2, 2, 2]);
});

test('a different event after a failure is applied to every projection (the partial state is for the same event only)', (t) => {
  const first = counter('first');
  const second = counter('second', true);
  const runner = new ProjectionRunner({} as Journal, [first, second]);
  t.throws(() => runner.derive([event(1)]));
  runner.derive([event(2)]);
  t.deepEqual([first.count, second.count], [2, 1]);
});
