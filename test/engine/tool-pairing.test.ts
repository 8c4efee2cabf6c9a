import test from 'ava';
import type { ModelMessage } from '../../src/providers/wire/types.ts';
import { INTERRUPTED_RESULT, repairToolPairing } from '../../src/engine/tool-pairing.ts';

// The last check before each model request (issue 23 item 5): each tool call has exactly one result, right after it.

const user = (text: string): ModelMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const calls = (...ids: string[]): ModelMessage => ({ role: 'assistant', content: [{ type: 'text', text: 'on it' }, ...ids.map((id) => ({ type: 'tool_use' as const, id, name: 'Bash', input: {} }))] });
const results = (...ids: string[]): ModelMessage => ({ role: 'tool', content: ids.map((id) => ({ type: 'tool_result' as const, tool_use_id: id, name: 'Bash', content: `out ${id}` })) });
const interrupted = (id: string) => ({ type: 'tool_result', tool_use_id: id, name: 'Bash', content: INTERRUPTED_RESULT, is_error: true });

test('a valid history is returned as is (no copy)', (t) => {
  const h = [user('hi'), calls('a', 'b'), results('a', 'b'), { role: 'assistant', content: [{ type: 'text', text: 'done' }] } as ModelMessage, user('next')];
  t.is(repairToolPairing(h), h);
  t.is(repairToolPairing([]).length, 0);
});

test('calls without a result get the interrupted result (a crash or a stop mid-call), in call order', (t) => {
  const h = [user('hi'), calls('a', 'b'), user('next')];
  t.deepEqual(repairToolPairing(h), [user('hi'), calls('a', 'b'), { role: 'tool', content: [interrupted('a'), interrupted('b')] }, user('next')]);
});

test('a partly answered step keeps its results and fills the gap', (t) => {
  const h = [user('hi'), calls('a', 'b', 'c'), results('b'), user('next')];
  const out = repairToolPairing(h);
  t.deepEqual(out[2], { role: 'tool', content: [interrupted('a'), results('b').content[0], interrupted('c')] });
  t.is(out.length, 4);
});

test('calls at the very end of the history are answered too', (t) => {
  t.deepEqual(repairToolPairing([user('hi'), calls('a')]), [user('hi'), calls('a'), { role: 'tool', content: [interrupted('a')] }]);
});

test('orphan results are dropped: before any call, answering no call of the message before, or an empty tool message left', (t) => {
  const h = [results('x'), user('hi'), calls('a'), results('a', 'zz'), results('y'), { role: 'assistant', content: [{ type: 'text', text: 'ok' }] } as ModelMessage, results('a')];
  t.deepEqual(repairToolPairing(h), [user('hi'), calls('a'), results('a'), { role: 'assistant', content: [{ type: 'text', text: 'ok' }] }]);
});

test('a second result for a call is dropped, the first kept', (t) => {
  const second: ModelMessage = { role: 'tool', content: [{ type: 'tool_result', tool_use_id: 'a', name: 'Bash', content: 'again' }] };
  t.deepEqual(repairToolPairing([user('hi'), calls('a'), results('a'), second]), [user('hi'), calls('a'), results('a')]);
});

test('results split over several tool messages are joined into one right after the calls', (t) => {
  t.deepEqual(repairToolPairing([user('hi'), calls('a', 'b'), results('a'), results('b')]), [user('hi'), calls('a', 'b'), results('a', 'b')]);
});

test('a user message between the calls and their results (a note slipped in) moves after the results', (t) => {
  const h = [user('hi'), calls('a'), user('note'), results('a'), user('steer')];
  t.deepEqual(repairToolPairing(h), [user('hi'), calls('a'), results('a'), user('note'), user('steer')]);
});

test('a tool call id used twice keeps its first call; the later call and its results go', (t) => {
  const h = [user('hi'), calls('a'), results('a'), calls('a'), results('a')];
  const out = repairToolPairing(h);
  t.deepEqual(out, [user('hi'), calls('a'), results('a'), { role: 'assistant', content: [{ type: 'text', text: 'on it' }] }]);
});

test('the input is never changed', (t) => {
  const h = [user('hi'), calls('a', 'b'), results('b'), user('next')];
  const copy = structuredClone(h);
  repairToolPairing(h);
  t.deepEqual(h, copy);
});
