import test from 'ava';
import type { JournalEvent } from '../../journal/types.ts';
import { ExistingPaths } from '../../projections/file-history/existing-paths.ts';

// The paths a session's file history last saw existing, kept beside the history for the Bash deletion check:
// the same paths as the history's fold (existingFiles), and unknown (undefined: fold) after any gap.

function stream(id: string, epoch = 'e1') {
  let seq = 0;
  return (type: string, payload: Record<string, unknown> = {}): JournalEvent => ({ stream: id, seq: ++seq, epoch, type, ts: '', payload });
}
const changed = (path: string, deleted = false) => ({ agent_id: 'main', tool_name: 'Write', path, existed: deleted, ...(deleted ? { deleted: true } : {}) });
const head = (seq: number, epoch = 'e1') => ({ seq, epoch, created_at: '' });

/** A set bounded at `maxPaths`, told of session `s` from its creation through its first main turn (seq 2). */
function afterFirstTurn(maxPaths: number) {
  const x = new ExistingPaths(maxPaths);
  const ev = stream('s');
  x.apply(ev('session.created'));
  x.apply(ev('turn.started', { agent_id: 'main', turn_id: 't0' }));
  return { x, ev };
}

test('a session is known from its first event: changes before the first main turn do not count, a deletion removes, newest first, bounded', (t) => {
  const x = new ExistingPaths(3);
  const ev = stream('s');
  x.apply(ev('session.created'));
  x.apply(ev('file.changed', changed('early.txt')));
  t.deepEqual(x.get('s', head(2)), [], 'no main turn yet: the history ignores the change');
  x.apply(ev('turn.started', { agent_id: 'main', turn_id: 't0' }));
  for (const p of ['a', 'b', 'c', 'a', 'd']) x.apply(ev('file.changed', changed(p)));
  t.deepEqual(x.get('s', head(8)), ['d', 'a', 'c'], 'newest change first, at most 3');
  x.apply(ev('file.changed', changed('a', true)));
  t.is(x.get('s', head(9)), undefined, 'a path left out for the bound (b) may exist again after a removal: fold');
});

test('below the bound a removal keeps the session known', (t) => {
  const { x, ev } = afterFirstTurn(3);
  for (const p of ['a', 'b', 'c']) x.apply(ev('file.changed', changed(p)));
  x.apply(ev('file.changed', changed('a', true)));
  t.deepEqual(x.get('s', head(6)), ['c', 'b']);
  x.seed('s', head(6), 6, true, ['e', 'd', 'c', 'b']);
  x.apply(ev('file.changed', changed('c', true)));
  t.is(x.get('s', head(7)), undefined, 'seeded with more paths than the bound: a removal folds again');
});

test('a gap, another head or epoch makes the session unknown; a seed from a fold makes it known again', (t) => {
  const { x, ev } = afterFirstTurn(10);
  t.deepEqual(x.get('s', head(2)), []);
  t.is(x.get('s', head(3)), undefined, 'the head moved past what was applied');
  x.apply(ev('file.changed', changed('a')));
  t.is(x.get('s', head(3)), undefined, 'dropped: not applied again until seeded');
  x.seed('s', head(3), 3, true, ['a']);
  t.deepEqual(x.get('s', head(3)), ['a']);
  x.apply({ ...ev('file.changed', changed('b')), seq: 5 });
  t.is(x.get('s', head(5)), undefined, 'an event after a gap');
  x.seed('s', head(6), 5, true, ['b']);
  t.is(x.get('s', head(6)), undefined, 'a fold behind the head seeds nothing');
  const again = stream('s', 'e2');
  x.apply(again('session.created'));
  t.deepEqual(x.get('s', head(1, 'e2')), [], 'a re-created stream starts empty');
  t.is(x.get('s', head(1, 'e3')), undefined);
});

test('at most maxSessions sessions are kept, the least recently checked first', (t) => {
  const x = new ExistingPaths(10, 2);
  for (const id of ['a', 'b']) x.apply(stream(id)('session.created'));
  t.deepEqual(x.get('a', head(1)), []);
  x.apply(stream('c')('session.created'));
  t.is(x.get('b', head(1)), undefined, 'b went first');
  t.deepEqual(x.get('a', head(1)), []);
  t.deepEqual(x.get('c', head(1)), []);
});
